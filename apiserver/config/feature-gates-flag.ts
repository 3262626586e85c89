/**
 * `--feature-gates`, parsed as kube-apiserver 1.32 parses it: comma-separated items (the flag may be
 * repeated; items add up), each `Name=bool` or `kube:Name=bool` (kube's only component here). Syntax is
 * checked for every item first, then the settings are applied to the gate table (apiserver/features/).
 * Every problem is a `FlagError` carrying kube's message:
 * - `missing bool value for X`, `invalid value of X=v, err: strconv.ParseBool: parsing "v": invalid syntax`;
 * - `component not registered: wardle` for another component prefix;
 * - `set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use`;
 * - `unrecognized feature gate: X`, `cannot set feature gate X to false, feature is locked to true`.
 * A repeated gate: the last value wins.
 */
import { FeatureGateError, resolveFeatureGates, type FeatureGates } from '../features/feature-gates.js';
import { FlagError } from './flag-error.js';
import { parseGoBool } from './parse-flags.js';

/** `items`: the flag's comma-separated items, trimmed, empty ones dropped (a `list` flag's value). */
export function parseFeatureGatesFlag(items: readonly string[]): FeatureGates {
  // Split off the component first (kube checks components before it parses any gate).
  const pairs: string[] = [];
  let bare = false;
  let prefixed = false;
  for (const item of items) {
    const colon = item.indexOf(':');
    const component = colon < 0 ? '' : item.slice(0, colon).trim();
    if (component === '') bare = true;
    else if (component === 'kube') prefixed = true;
    else throw new FlagError(`component not registered: ${component}`);
    pairs.push((colon < 0 ? item : item.slice(colon + 1)).trim());
  }
  if (bare && prefixed) {
    throw new FlagError('set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use');
  }

  const settings = new Map<string, boolean>();
  for (const pair of pairs) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = (eq < 0 ? pair : pair.slice(0, eq)).trim();
    if (eq < 0) throw new FlagError(`missing bool value for ${key}`);
    const text = pair.slice(eq + 1).trim();
    const value = parseGoBool(text);
    if (value === undefined) {
      throw new FlagError(`invalid value of ${key}=${text}, err: strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
    }
    settings.delete(key); // the last value wins, at its own position
    settings.set(key, value);
  }
  try {
    return resolveFeatureGates(settings);
  } catch (err) {
    if (err instanceof FeatureGateError) throw new FlagError(err.message);
    throw err;
  }
}
