/**
 * The secrets a test server holds, registered for the run's leak scan (global-teardown-leaks.cjs): the
 * generated admin token (`<data-dir>/admin.token`), every line of every private key under `<data-dir>/pki`,
 * the tokens of a `--token-auth-file` CSV, and the keys (`secret:`) of an `--encryption-provider-config`
 * (as the file is when registered: keys rotated in later are registered by a later call). Appended as JSON lines `{ label, value }` to
 * `<captureDir>/secrets-<who>.jsonl`. Best effort: a missing file is skipped.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

function read(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function serverSecrets(dataDir, tokenFile, encryptionFile) {
  const out = [];
  if (dataDir !== undefined) {
    const admin = read(path.join(dataDir, 'admin.token'));
    if (admin !== undefined && admin.trim().length >= 8) out.push({ label: `admin token of ${dataDir}`, value: admin.trim() });
    let keys = [];
    try {
      keys = fs.readdirSync(path.join(dataDir, 'pki')).filter((f) => f.endsWith('.key'));
    } catch {
      // no pki
    }
    for (const k of keys) {
      const pem = read(path.join(dataDir, 'pki', k)) ?? '';
      pem.split('\n').forEach((line, i) => {
        if (line.length >= 16 && !line.startsWith('-----')) out.push({ label: `${dataDir}/pki/${k} line ${i + 1}`, value: line });
      });
    }
  }
  if (tokenFile !== undefined) {
    for (const line of (read(tokenFile) ?? '').split('\n')) {
      const token = line.split(',')[0].trim();
      if (token.length >= 8) out.push({ label: `token in ${tokenFile}`, value: token });
    }
  }
  if (encryptionFile !== undefined) {
    for (const m of (read(encryptionFile) ?? '').matchAll(/["']?secret["']?\s*:\s*["']?([A-Za-z0-9+/=_-]{16,})/g)) {
      out.push({ label: `encryption key in ${encryptionFile}`, value: m[1] });
    }
  }
  return out;
}

function registerServerSecrets(captureDir, who, dataDir, tokenFile, encryptionFile) {
  try {
    const lines = serverSecrets(dataDir, tokenFile, encryptionFile).map((s) => JSON.stringify(s)).join('\n');
    if (lines === '') return;
    fs.mkdirSync(captureDir, { recursive: true });
    fs.appendFileSync(path.join(captureDir, `secrets-${who}.jsonl`), `${lines}\n`);
  } catch {
    // best effort
  }
}

module.exports = { registerServerSecrets, serverSecrets };
