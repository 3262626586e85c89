import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { unknownBuild, type BuildInfo } from './version.js';

/**
 * Build facts for `/version`, best effort and never fatal. Environment variables win (images are built
 * without `.git`): `PLATFORM_GIT_COMMIT`, `PLATFORM_GIT_TREE_STATE`, `PLATFORM_BUILD_DATE`. Otherwise the
 * commit and tree state come from git in `repoDir`, and the build date is the modification time of
 * `builtFile` (the compiled entry point).
 */
export function readBuildInfo(repoDir: string, builtFile: string, env: NodeJS.ProcessEnv = process.env): BuildInfo {
  const git = (...args: string[]): string | undefined => {
    try {
      return execFileSync('git', args, { cwd: repoDir, timeout: 2000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return undefined;
    }
  };
  const commit = env['PLATFORM_GIT_COMMIT'] ?? git('rev-parse', 'HEAD');
  const status = env['PLATFORM_GIT_TREE_STATE'] ?? (commit === undefined ? undefined : statusOf(git('status', '--porcelain', '--untracked-files=no')));
  let buildDate = env['PLATFORM_BUILD_DATE'];
  if (buildDate === undefined) {
    try {
      buildDate = statSync(builtFile).mtime.toISOString().replace(/\.\d{3}Z$/, 'Z');
    } catch {
      buildDate = unknownBuild.buildDate;
    }
  }
  return { gitCommit: commit ?? unknownBuild.gitCommit, gitTreeState: status ?? unknownBuild.gitTreeState, buildDate };
}

function statusOf(porcelain: string | undefined): string | undefined {
  if (porcelain === undefined) return undefined;
  return porcelain === '' ? 'clean' : 'dirty';
}
