#!/usr/bin/env node
/**
 * Records in package-lock.json the optional, platform-specific binary packages (`@swc/core-darwin-arm64`,
 * ...) that the registry mirror on our machines does not serve. Without their entries `npm ci` refuses
 * the lock ("Missing: ... from lock file"); with them it sees a platform mismatch and skips them without
 * contacting the registry. Run it after every `npm install` that rewrites the lock:
 *
 *   node scripts/lock-foreign-platforms.mjs
 *
 * Only packages named `<scope>/<base>-<os>-<cpu>[-<libc>]` and listed in a parent's optionalDependencies
 * are added; entries npm wrote itself are left alone.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = { darwin: 'darwin', win32: 'win32', linux: 'linux', android: 'android', freebsd: 'freebsd', openharmony: 'openharmony' };
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const osIndex = parts.findIndex((p) => p in OS);
  if (osIndex < 0) return undefined;
  const cpuPart = parts[osIndex + 1] ?? '';
  const cpu = CPU.find((c) => cpuPart === c || cpuPart.startsWith(c)) ?? (cpuPart === 'arm' ? 'arm' : undefined);
  if (cpu === undefined) return undefined;
  const rest = parts.slice(osIndex + 2).join('-');
  const libc = /musl/.test(rest) ? ['musl'] : /gnu/.test(rest) ? ['glibc'] : undefined;
  return { os: [OS[parts[osIndex]]], cpu: [cpu], ...(libc && parts[osIndex] === 'linux' ? { libc } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (packages[key] !== undefined || packages[`${path}/${key}`] !== undefined) continue;
    const platform = platformOf(dep);
    if (platform === undefined || !/^\d+\.\d+\.\d+/.test(version)) continue;
    packages[key] = { version, ...platform, optional: true, ...(entry.dev ? { dev: true } : {}) };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-foreign-platforms: added ${added} entr${added === 1 ? 'y' : 'ies'}`);
