/**
 * Kubernetes' ordering of version strings (apimachinery `CompareKubeAwareVersionStrings`): stable before
 * beta before alpha, higher numbers first within a level; names outside the `v<N>[alpha|beta<M>]` scheme
 * come last, in lexical order. The first version of a group in this order is its preferred version.
 */
const kubeVersion = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const levelRank: Readonly<Record<string, number>> = { '': 3, beta: 2, alpha: 1 };

/** Negative when `a` comes before `b` (has the higher priority). */
export function compareVersionPriority(a: string, b: string): number {
  const ma = kubeVersion.exec(a);
  const mb = kubeVersion.exec(b);
  if (ma === null || mb === null) {
    if (ma !== null) return -1;
    if (mb !== null) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const la = levelRank[ma[2] ?? '']!;
  const lb = levelRank[mb[2] ?? '']!;
  if (la !== lb) return lb - la;
  const major = Number(mb[1]) - Number(ma[1]);
  if (major !== 0) return major;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
