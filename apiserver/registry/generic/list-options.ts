/**
 * Validation of list parameters, with kube's answers: 422 `ListOptions.meta.<domain> "" is invalid` for
 * resourceVersionMatch misuse, 400 for a resourceVersion next to a continue token.
 */
import { badRequest, invalid } from '../../errors/constructors.js';
import { checkFieldLabels } from '../../selectors/field-selector.js';
import { forbidden, notSupported, toCauses, type FieldError } from '../../validation/field-error.js';
import type { ListOptions } from './options.js';
import type { RegistryContext } from './registry-context.js';

export function validateListOptions(ctx: RegistryContext, opts: ListOptions): void {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch ?? '';
  const rv = opts.resourceVersion ?? '';
  const cont = opts.continue ?? '';
  if (match !== '') {
    if (rv === '') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (cont !== '') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match === 'Exact') {
      if (rv === '0') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    } else if (match !== 'NotOlderThan') {
      errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan']));
    }
  }
  if (errs.length > 0) throw invalid({ group: ctx.metaGroup, kind: 'ListOptions' }, '', toCauses(errs));
  if (cont !== '' && rv !== '' && rv !== '0') throw badRequest('specifying resource version is not allowed when using continue');
  if (opts.fieldSelector !== undefined && !opts.fieldSelector.empty) {
    checkFieldLabels(opts.fieldSelector, Object.keys(ctx.strategy.selectableFields ?? {}));
  }
}
