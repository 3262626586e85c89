/**
 * What a discovery request asks for, read from its Accept header: the aggregated list (v2 or v2beta1)
 * when a clause names `as=APIGroupDiscoveryList;g=apidiscovery.k8s.io`, else the legacy document.
 *
 * A local reading of Accept (q-values, wildcards, the `as`/`g`/`v` parameters) for the two discovery
 * roots; the general negotiation of the REST handlers lives in the codec layer.
 */
import type { AggregatedVersion } from './aggregated-documents.js';
import { discoveryGroup } from './aggregated-documents.js';

export type DiscoveryChoice = { readonly kind: 'legacy' } | { readonly kind: 'aggregated'; readonly version: AggregatedVersion } | { readonly kind: 'none' };

interface Clause {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
  readonly index: number;
}

function parseClauses(header: string): Clause[] {
  const out: Clause[] = [];
  let index = 0;
  for (const part of header.split(',')) {
    const [mediaRange = '', ...rest] = part.split(';');
    const type = mediaRange.trim().toLowerCase();
    if (type === '') continue;
    const params = new Map<string, string>();
    let q = 1;
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      const value = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (key === 'q') {
        const n = Number(value);
        q = Number.isFinite(n) ? n : 0;
      } else params.set(key, value);
    }
    out.push({ type, params, q, index: index++ });
  }
  // Highest q first; the header's order among equals (a stable sort).
  return out.sort((a, b) => b.q - a.q || a.index - b.index);
}

const jsonRanges = new Set(['application/json', 'application/*', '*/*']);

/**
 * The first acceptable clause decides. A clause asking another conversion (`as=Table`, an unknown
 * discovery version) or another media type is skipped; `none` when no clause fits (406). An absent or
 * empty header is the legacy document.
 */
export function chooseDiscovery(accept: string | undefined, aggregatedAllowed: boolean): DiscoveryChoice {
  if (accept === undefined || accept.trim() === '') return { kind: 'legacy' };
  for (const c of parseClauses(accept)) {
    if (c.q <= 0 || !jsonRanges.has(c.type)) continue;
    const as = c.params.get('as');
    if (as === undefined) return { kind: 'legacy' };
    if (!aggregatedAllowed || as !== 'APIGroupDiscoveryList' || c.params.get('g') !== discoveryGroup) continue;
    const v = c.params.get('v');
    if (v === 'v2' || v === 'v2beta1') return { kind: 'aggregated', version: v };
  }
  return { kind: 'none' };
}

/** Whether plain JSON is acceptable: an absent header, `application/json` or a wildcard range. */
export function acceptsJson(accept: string | undefined): boolean {
  return chooseDiscovery(accept, false).kind === 'legacy';
}
