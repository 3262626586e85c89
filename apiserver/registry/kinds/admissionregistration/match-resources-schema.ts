/**
 * The admissionregistration/v1 match types shared by ValidatingAdmissionPolicy (`spec.matchConstraints`)
 * and its binding (`spec.matchResources`): MatchResources and NamedRuleWithOperations, with the field
 * numbers of `k8s.io/api/admissionregistration/v1/generated.proto`.
 *
 * JSON flattens Go's embedded structs: a NamedRuleWithOperations object holds `resourceNames` and the
 * fields of RuleWithOperations (`operations`), which holds those of Rule (`apiGroups`, `apiVersions`,
 * `resources`, `scope`). On the wire they nest: NamedRuleWithOperations { resourceNames = 1,
 * ruleWithOperations = 2 { operations = 1, rule = 2 { apiGroups = 1, apiVersions = 2, resources = 3,
 * scope = 4 } } }.
 *
 * Defaults as Kubernetes' v1 defaulting (SetDefaults_MatchResources, SetDefaults_Rule): a MatchResources
 * that is present gets `matchPolicy: Equivalent` and empty (match-everything) namespace and object
 * selectors; a rule gets `scope: "*"`.
 */
import { inline, ptr, type Schema } from '../../../schema/schema.js';
import { labelSelectorSchema } from '../core/pod/label-selector-schema.js';
import { atomicList, obj, str, stringList } from '../shared/schema-builders.js';

export const namedRuleWithOperationsSchema: Schema = obj(
  'A rule of operations on resources (with optional resource names) that admission matching applies.',
  {
    apiGroups: stringList('The API groups of the resources; "" is the core group, "*" every group (then alone in the list).'),
    apiVersions: stringList('The API versions of the resources; "*" every version (then alone in the list).'),
    operations: stringList('CREATE, UPDATE, DELETE, CONNECT, or "*" for all of them and any added later (then alone in the list).'),
    resourceNames: stringList('Names the rule is limited to; empty means every name.'),
    resources: stringList(
      'Resources and sub-resources: "pods", "pods/log", "pods/*" (every sub-resource of pods), "*" (every resource, no sub-resources), "*/scale", "*/*" (everything). Entries with wildcards may not overlap.',
    ),
    scope: str('"Cluster" (cluster-scoped resources only; namespaces are cluster-scoped), "Namespaced", or "*" (default). Sub-resources follow their parent.', {
      default: '*',
    }),
  },
  undefined,
  {
    'x-kubernetes-map-type': 'atomic',
    protobuf: {
      resourceNames: 1,
      operations: inline(2, 1),
      apiGroups: inline([2, 2], 1),
      apiVersions: inline([2, 2], 2),
      resources: inline([2, 2], 3),
      scope: inline([2, 2], ptr(4)),
    },
  },
);

const rulesSchema = (description: string): Schema => atomicList({ ...namedRuleWithOperationsSchema, default: {} }, description);
const selector = (description: string): Schema => ({ ...labelSelectorSchema, description, default: {} });

export const matchResourcesSchema: Schema = obj(
  'Which requests admission matching selects: include rules, exclude rules (which win), namespace and object selectors, and how rules match other group versions.',
  {
    excludeResourceRules: rulesSchema('Operations on resources that are never matched, even when an include rule matches.'),
    matchPolicy: str(
      'Exact: only requests that match a rule as written. Equivalent (default): also requests for the same resource through another group or version, converted to a version the rules name.',
      { default: 'Equivalent' },
    ),
    namespaceSelector: selector(
      'Selects on the labels of the namespace of the object; a Namespace object is matched by its own labels, other cluster-scoped objects always match. Default: everything.',
    ),
    objectSelector: selector('Selects on the labels of the object, old or new (either matching is enough); a missing object does not match. Default: everything.'),
    resourceRules: rulesSchema('Operations on resources that are matched when any rule matches.'),
  },
  undefined,
  {
    'x-kubernetes-map-type': 'atomic',
    protobuf: { namespaceSelector: ptr(1), objectSelector: ptr(2), resourceRules: 3, excludeResourceRules: 4, matchPolicy: ptr(7) },
  },
);
