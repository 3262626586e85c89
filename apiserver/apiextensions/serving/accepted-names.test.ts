/**
 * The naming decision of a CustomResourceDefinition (Kubernetes' naming controller): which requested names
 * are accepted given the names others in the group use, with the reason of the last conflict, and the
 * Established condition that follows.
 */
import type { KubeObject } from '../../api/object.js';
import { decideNames, usedNames } from './accepted-names.js';

const crd = (name: string, names: Record<string, unknown>, status: Record<string, unknown> = {}, group = 'example.com'): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name },
  spec: { group, names },
  status,
});

const widgets = crd('widgets.example.com', { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] }, {
  acceptedNames: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
});

test('free names are all accepted; Established follows at once', () => {
  const d = decideNames(crd('gadgets.example.com', { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList', shortNames: ['gd'], categories: ['all'] }), usedNames('gadgets.example.com', 'example.com', [widgets], []));
  expect(d.acceptedNames).toEqual({ plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList', shortNames: ['gd'], categories: ['all'] });
  expect(d.namesAccepted).toEqual({ type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
  expect(d.established).toMatchObject({ status: 'True', reason: 'InitialNamesAccepted' });
});

test('each member conflicts in its own namespace; the last conflict names the reason; plural and kind stay written', () => {
  const used = usedNames('x.example.com', 'example.com', [widgets], []);
  const d = decideNames(crd('x.example.com', { plural: 'wd', singular: 'x', kind: 'WidgetList', listKind: 'XList' }), used);
  expect(d.acceptedNames).toEqual({ plural: '', singular: 'x', listKind: 'XList', kind: '' });
  expect(d.namesAccepted).toMatchObject({ status: 'False', reason: 'KindConflict', message: '"WidgetList" is already in use' });
  expect(d.established).toMatchObject({ status: 'False', reason: 'NotAccepted' });
});

test('short names: several taken are listed as Go aggregates them; names already accepted stay', () => {
  const used = usedNames('x.example.com', 'example.com', [widgets, crd('y.example.com', {}, { acceptedNames: { plural: 'ys', shortNames: ['y1'] } })], []);
  const d = decideNames(crd('x.example.com', { plural: 'xs', kind: 'X', shortNames: ['wd', 'y1', 'ok'] }), used);
  expect(d.namesAccepted).toMatchObject({ reason: 'ShortNamesConflict', message: '["wd" is already in use, "y1" is already in use]' });
  expect(d.acceptedNames.shortNames).toBeUndefined();
  // Accepted earlier, then another definition took the name meanwhile: ours is kept.
  const mine = crd('x.example.com', { plural: 'xs', kind: 'X', shortNames: ['wd'] }, { acceptedNames: { plural: 'xs', kind: 'X', shortNames: ['wd'] } });
  expect(decideNames(mine, used).namesAccepted.status).toBe('True');
});

test('built-in resources of the group count, other groups do not; an Established definition stays Established', () => {
  const builtins = [{ resource: 'roles', singular: 'role', kind: 'Role', shortNames: [] }];
  const d = decideNames(crd('roles.rbac.example.io', { plural: 'roles', kind: 'Role2' }, {}, 'rbac.example.io'), usedNames('roles.rbac.example.io', 'rbac.example.io', [], builtins));
  expect(d.namesAccepted).toMatchObject({ reason: 'PluralConflict', message: '"roles" is already in use' });
  const otherGroup = crd('widgets.other.com', { plural: 'widgets', kind: 'Widget' }, {}, 'other.com');
  expect(decideNames(otherGroup, usedNames('widgets.other.com', 'other.com', [widgets], [])).namesAccepted.status).toBe('True');
  const established = { ...widgets, status: { ...(widgets.status as Record<string, unknown>), conditions: [{ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }] } };
  const renamed = { ...established, spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Gadget' } } };
  const d2 = decideNames(renamed, usedNames('widgets.example.com', 'example.com', [crd('g.example.com', {}, { acceptedNames: { plural: 'gs', kind: 'Gadget' } })], []));
  expect(d2.namesAccepted.status).toBe('False');
  expect(d2.acceptedNames.kind).toBe('Widget');
  expect(d2.established.status).toBe('True');
});
