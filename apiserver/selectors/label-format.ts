/**
 * Label maps and metav1.LabelSelector objects as text, the way Kubernetes prints them in Scale
 * `status.selector` and in table cells. Inputs are raw JSON values (`unknown`): a non-object reads as an
 * absent map or selector, so callers need no shape checks of their own.
 */
import { labelSelectorFromObject, type LabelSelectorObject } from './label-selector-object.js';
import { isObject } from '../api/json.js';

/**
 * labels.Set's string (also what `labels.SelectorFromSet(set).String()` prints): `k=v` pairs with keys
 * sorted, joined by commas; '' for an absent or empty map.
 */
export function labelMapText(map: unknown): string {
  if (!isObject(map)) return '';
  return Object.keys(map)
    .sort()
    .map((k) => `${k}=${String(map[k])}`)
    .join(',');
}

/** labels.FormatLabels: {@link labelMapText}, `<none>` for an absent or empty map. */
export function formatLabels(map: unknown): string {
  return labelMapText(map) || '<none>';
}

/**
 * `metav1.LabelSelectorAsSelector(selector).String()`: '' for an absent selector (selects nothing) and for
 * an empty one (selects everything). Throws (a 400 BadRequest) when the selector is invalid.
 */
export function labelSelectorText(selector: unknown): string {
  return labelSelectorFromObject(isObject(selector) ? (selector as LabelSelectorObject) : undefined).toString();
}

/** metav1.FormatLabelSelector: {@link labelSelectorText}, `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(selector: unknown): string {
  try {
    return labelSelectorText(selector) || '<none>';
  } catch {
    return '<error>';
  }
}
