/**
 * Jest global tear-down: the leak scan of the whole run. Everything the run's servers wrote (captured under
 * PLATFORM_TEST_CAPTURE_DIR: spawned processes' stdout/stderr by capture-preload.cjs, in-process servers'
 * log lines and the audit logs tests configured by capture.ts) is searched for every secret the harness
 * registered (each server's admin token, private key lines, token file tokens: capture-secrets.cjs) and for
 * the canaries planted in shared fixtures (canaries.cjs), each as is, in base64 and percent-encoded.
 * A hit fails the run naming the file, the line and the secret; the directory is then kept for a look
 * (until a later run's tear-down, which removes the directories of runs whose jest is gone), otherwise
 * removed. One `grep -F` over all files (Aho-Corasick): seconds for a whole run.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const canaries = require('./canaries.cjs');

function forms(value) {
  const b64 = Buffer.from(value).toString('base64').replace(/=+$/, '');
  return [...new Set([value, b64, Buffer.from(value).toString('base64url'), encodeURIComponent(value)])];
}

/**
 * The secrets to look for, as `{ files, secrets }` groups (`secrets`: value -> label; `files`: the captured
 * files to search, undefined for all). Canaries, admin tokens, keys: every file (they are random or planted,
 * so a hit anywhere is a leak). Tokens of a `--token-auth-file` are fixture strings that tests also use as
 * object and user names elsewhere (`sam-token`): they are looked for only in the output of the process that
 * registered them (a spawned server's `proc-<pid>-*`, a jest worker's `worker-<pid>.log` and `audit-<pid>-*`),
 * which is where that server could print them.
 */
function secretGroups(dir, logs) {
  const everywhere = new Map(Object.entries(canaries).map(([label, value]) => [value, label]));
  const scoped = new Map(); // owner prefix -> Map(value -> label)
  for (const f of fs.readdirSync(dir).filter((n) => n.startsWith('secrets-') && n.endsWith('.jsonl'))) {
    const owner = f.slice('secrets-'.length, -'.jsonl'.length); // proc-<pid> or worker-<pid>
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (line === '') continue;
      const { label, value } = JSON.parse(line);
      if (typeof value !== 'string' || value.length < 8) continue;
      if (!label.startsWith('token in ')) {
        if (!everywhere.has(value)) everywhere.set(value, label);
        continue;
      }
      if (!scoped.has(owner)) scoped.set(owner, new Map());
      scoped.get(owner).set(value, label);
    }
  }
  const groups = [{ files: logs, secrets: everywhere }];
  for (const [owner, secrets] of scoped) {
    const pid = owner.slice(owner.indexOf('-') + 1);
    const files = owner.startsWith('proc-')
      ? logs.filter((n) => n.startsWith(`${owner}-`))
      : logs.filter((n) => n === `${owner}.log` || n.startsWith(`audit-${pid}-`));
    if (files.length > 0) groups.push({ files, secrets });
  }
  return groups;
}

/** `file:line: label` for each needle (a secret in each of its forms) found in `files`. */
function grepFor(dir, files, secrets) {
  const needles = new Map();
  for (const [value, label] of secrets) for (const f of forms(value)) if (!needles.has(f)) needles.set(f, label);
  if (files.length === 0 || needles.size === 0) return [];
  const patterns = path.join(dir, 'needles.txt');
  fs.writeFileSync(patterns, [...needles.keys()].join('\n') + '\n');
  const grep = spawnSync('grep', ['-HnoF', '-f', patterns, '--', ...files], {
    cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C' },
  });
  fs.rmSync(patterns);
  if (grep.status === 1) return [];
  if (grep.status !== 0) throw new Error(`leak scan: grep failed (${grep.status}): ${grep.stderr}`);
  return grep.stdout.split('\n').filter((l) => l !== '').map((l) => {
    const m = /^(.*?):(\d+):(.*)$/.exec(l);
    return m === null ? l : `${path.join(dir, m[1])}:${m[2]}: ${needles.get(m[3]) ?? 'a secret'}`;
  });
}

/** The hits (`file:line: secret`) of `dir`'s captured files; [] when none. */
function scanCaptureDir(dir) {
  const logs = fs.readdirSync(dir).filter((n) => !n.startsWith('secrets-') && n !== 'needles.txt');
  return secretGroups(dir, logs).flatMap((g) => grepFor(dir, g.files, g.secrets));
}

/** Capture directories of earlier runs that were killed before their tear-down (their jest is gone). */
function removeAbandoned(current) {
  const tmp = require('node:os').tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    const m = /^platform-test-capture-(\d+)-\d+$/.exec(name);
    const full = path.join(tmp, name);
    if (m === null || full === current) continue;
    try {
      process.kill(Number(m[1]), 0);
    } catch {
      fs.rmSync(full, { recursive: true, force: true }); // no such process: abandoned
    }
  }
}

module.exports = async function leakTeardown() {
  const dir = process.env.PLATFORM_TEST_CAPTURE_DIR;
  removeAbandoned(dir);
  if (!dir || !fs.existsSync(dir)) return;
  const hits = scanCaptureDir(dir);
  if (hits.length > 0) {
    throw new Error(`secrets leaked into server output (${hits.length} hits; files kept in ${dir}):\n${[...new Set(hits)].slice(0, 50).join('\n')}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
};
module.exports.scanCaptureDir = scanCaptureDir;
