/** Validation of tolerations and topology spread constraints, with Kubernetes' messages. */
import { type FieldError, type FieldPath, duplicate, invalidValue, notSupported, required } from '../../../../validation/field-error.js';
import { isQualifiedName, isValidLabelValue } from '../../../../validation/names.js';
import { type JsonObject, arrayAt, numberAt, objectItems, stringAt } from './json-values.js';

const TAINT_EFFECTS: readonly string[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const WHEN_UNSATISFIABLE: readonly string[] = ['DoNotSchedule', 'ScheduleAnyway'];

export function validateTolerations(spec: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, t] of objectItems(arrayAt(spec, 'tolerations'))) {
    const at = path.index(i);
    const key = stringAt(t, 'key');
    const operator = stringAt(t, 'operator');
    const value = stringAt(t, 'value');
    const effect = stringAt(t, 'effect');
    if (key !== '') for (const msg of isQualifiedName(key)) errs.push(invalidValue(at.child('key'), key, msg));
    if (key === '' && operator !== 'Exists') {
      errs.push(invalidValue(at.child('operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (typeof t.tolerationSeconds === 'number' && effect !== 'NoExecute') {
      errs.push(invalidValue(at.child('effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === 'Equal' || operator === '') {
      const msgs = isValidLabelValue(value);
      if (msgs.length > 0) errs.push(invalidValue(at.child('operator'), value, msgs.join(';')));
    } else if (operator === 'Exists') {
      if (value !== '') errs.push(invalidValue(at.child('operator'), t, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(notSupported(at.child('operator'), operator, ['Equal', 'Exists']));
    }
    if (effect !== '' && !TAINT_EFFECTS.includes(effect)) errs.push(notSupported(at.child('effect'), effect, TAINT_EFFECTS));
  }
  return errs;
}

export function validateTopologySpreadConstraints(spec: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const pairs = new Set<string>();
  for (const [i, c] of objectItems(arrayAt(spec, 'topologySpreadConstraints'))) {
    const at = path.index(i);
    const maxSkew = numberAt(c, 'maxSkew') ?? 0;
    if (maxSkew <= 0) errs.push(invalidValue(at.child('maxSkew'), maxSkew, 'must be greater than zero'));
    const key = stringAt(c, 'topologyKey');
    if (key === '') errs.push(required(at.child('topologyKey'), 'can not be empty'));
    else for (const msg of isQualifiedName(key)) errs.push(invalidValue(at.child('topologyKey'), key, msg));
    const when = stringAt(c, 'whenUnsatisfiable');
    if (!WHEN_UNSATISFIABLE.includes(when)) errs.push(notSupported(at.child('whenUnsatisfiable'), when, WHEN_UNSATISFIABLE));
    const pair = `{${key}, ${when}}`;
    if (pairs.has(pair)) errs.push(duplicate(at.child('{topologyKey, whenUnsatisfiable}'), pair));
    pairs.add(pair);
  }
  return errs;
}
