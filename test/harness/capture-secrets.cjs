/**
 * The secrets a test server holds, registered for the run's leak scan (global-teardown-leaks.cjs): the
 * generated admin token (`<data-dir>/admin.token`), every line of every private key under `<data-dir>/pki`,
 * and the tokens of a `--token-auth-file` CSV. Appended as JSON lines `{ label, value }` to
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

function serverSecrets(dataDir, tokenFile) {
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
  return out;
}

function registerServerSecrets(captureDir, who, dataDir, tokenFile) {
  try {
    const lines = serverSecrets(dataDir, tokenFile).map((s) => JSON.stringify(s)).join('\n');
    if (lines === '') return;
    fs.mkdirSync(captureDir, { recursive: true });
    fs.appendFileSync(path.join(captureDir, `secrets-${who}.jsonl`), `${lines}\n`);
  } catch {
    // best effort
  }
}

module.exports = { registerServerSecrets, serverSecrets };
