/**
 * Kubernetes' OwnerReferencesPermissionEnforcement admission plugin (plugin/pkg/admission/gc, 1.32): a
 * CREATE or UPDATE that changes `metadata.ownerReferences` needs
 * - `delete` on the object itself ("cannot set an ownerRef on a resource you can't delete: <reason>, <nil>");
 * - for each reference it makes blocking (new with `blockOwnerDeletion: true`, or turned true), `update`
 *   on the owner's `<resource>/finalizers` in the object's namespace ("cannot set blockOwnerDeletion if an
 *   ownerReference refers to a resource you can't set finalizers on: <reason>, <nil>"); an owner kind the
 *   server does not serve is refused ("cannot set blockOwnerDeletion in this case because cannot find
 *   RESTMapping for APIVersion <v> Kind <k>: no matches for kind ...").
 * `pods/status` is exempt (its strategy keeps ownerReferences), and so are the server's own writes (no user:
 * the controllers). Denials are 403 Forbidden naming the object.
 *
 * kube-apiserver leaves it off by default; so does this server (it is not in the chain unless a caller adds
 * it).
 */
import type { OwnerReference } from '../../api/object.js';
import type { Authorizer } from '../../authorization/authorizer.js';
import { forbidden } from '../../errors/constructors.js';
import type { ServedResources } from '../../registry/served-resources.js';
import type { AdmissionAttributes } from '../attributes.js';
import type { AdmissionPlugin } from '../plugin.js';

export const OWNER_REFERENCES_PERMISSION_ENFORCEMENT = 'OwnerReferencesPermissionEnforcement';

const refsOf = (obj: AdmissionAttributes['object']): readonly OwnerReference[] => obj?.metadata.ownerReferences ?? [];

function changesOwnerReferences(a: AdmissionAttributes): boolean {
  const next = refsOf(a.object);
  if (a.oldObject === undefined) return next.length > 0;
  const old = refsOf(a.oldObject);
  if (old.length !== next.length) return true;
  const norm = (r: OwnerReference) => JSON.stringify([r.apiVersion, r.kind, r.name, r.uid, r.controller ?? null, r.blockOwnerDeletion ?? null]);
  return old.some((r, i) => norm(r) !== norm(next[i]!));
}

/** References that become blocking with this write. */
function newBlockingRefs(a: AdmissionAttributes): OwnerReference[] {
  const blocking = refsOf(a.object).filter((r) => r.blockOwnerDeletion === true);
  if (a.oldObject === undefined) return blocking;
  const old = new Map(refsOf(a.oldObject).map((r) => [r.uid, r]));
  return blocking.filter((r) => old.get(r.uid)?.blockOwnerDeletion !== true);
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export function ownerReferencesPermissionEnforcement(resources: ServedResources, authorizer: Authorizer): AdmissionPlugin {
  return {
    name: OWNER_REFERENCES_PERMISSION_ENFORCEMENT,
    operations: ['CREATE', 'UPDATE'],
    validate(a) {
      const user = a.userInfo;
      if (user === undefined) return;
      if (a.resource.group === '' && a.resource.resource === 'pods' && a.subresource === 'status') return;
      if (!changesOwnerReferences(a)) return;
      const gr = { group: a.resource.group, resource: a.resource.resource };
      const deny = (detail: string) => forbidden(gr, a.name, detail);

      const own = authorizer.authorize({
        user,
        verb: 'delete',
        isResourceRequest: true,
        path: '',
        namespace: a.namespace,
        apiGroup: a.resource.group,
        apiVersion: a.resource.version,
        resource: a.resource.resource,
        subresource: a.subresource,
        name: a.name,
      });
      if (own.decision !== 'allow') throw deny(`cannot set an ownerRef on a resource you can't delete: ${own.reason}, <nil>`);

      for (const ref of newBlockingRefs(a)) {
        const { group, version } = splitApiVersion(ref.apiVersion);
        const owner = resources.all.find((r) => r.strategy.virtual === undefined && r.group === group && r.strategy.version === version && r.strategy.kind === ref.kind);
        if (owner === undefined) {
          throw deny(`cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: no matches for kind "${ref.kind}" in version "${ref.apiVersion}"`);
        }
        const decision = authorizer.authorize({
          user,
          verb: 'update',
          isResourceRequest: true,
          path: '',
          // An owner is looked for in its dependent's namespace (cluster-scoped owners: the namespace is ignored).
          namespace: a.namespace,
          apiGroup: group,
          apiVersion: version,
          resource: owner.strategy.resource,
          subresource: 'finalizers',
          name: ref.name,
        });
        if (decision.decision !== 'allow') {
          throw deny(`cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${decision.reason}, <nil>`);
        }
      }
    },
  };
}
