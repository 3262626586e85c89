import type { AppContext } from '../request/request-state.js';

/**
 * The Kubernetes minor version this server speaks. kubectl's dispatcher on these machines reads
 * `minor` from `/version` to pick `kubectl.1.<minor>`; 32 is the newest line fully served.
 */
export const kubernetesMajor = '1';
export const kubernetesMinor = '32';
export const gitVersion = `v${kubernetesMajor}.${kubernetesMinor}.0-platform`;

/** Facts about the build, known at build or start time. */
export interface BuildInfo {
  readonly gitCommit: string;
  /** `clean`, `dirty`, or `` when unknown. */
  readonly gitTreeState: string;
  /** RFC 3339. */
  readonly buildDate: string;
}

/** What kube-apiserver reports when built without version stamping. */
export const unknownBuild: BuildInfo = { gitCommit: '', gitTreeState: '', buildDate: '1970-01-01T00:00:00Z' };

/** Go's GOOS/GOARCH names for Node's platform/arch. */
const goArch: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };
const goOs: Readonly<Record<string, string>> = { win32: 'windows', sunos: 'solaris' };

/** The `/version` body (apimachinery `version.Info`), field order as upstream. */
export function versionInfo(build: BuildInfo) {
  return {
    major: kubernetesMajor,
    minor: kubernetesMinor,
    gitVersion,
    gitCommit: build.gitCommit,
    gitTreeState: build.gitTreeState,
    buildDate: build.buildDate,
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${goOs[process.platform] ?? process.platform}/${goArch[process.arch] ?? process.arch}`,
  };
}

/** Serves `GET /version`. Returns false for other paths. */
export function serveVersion(ctx: AppContext, build: BuildInfo): boolean {
  if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || (ctx.path !== '/version' && ctx.path !== '/version/')) return false;
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = versionInfo(build);
  return true;
}
