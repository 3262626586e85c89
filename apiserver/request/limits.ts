/**
 * Limits every request is held to, shared by the filters in `server/`, the handlers in `endpoints/` and
 * the decoders in `codec/` and `schema/`. Where Kubernetes has a limit we keep its number unless the
 * comment says why not (docs/differences.md lists the differences).
 */

/** Largest request body, as kube-apiserver (etcd itself takes 1.5 MiB per value). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

/**
 * Deepest nesting of objects and arrays a JSON or YAML body (and raw JSON inside protobuf) may have. Go's
 * decoders stop at 10,000; ours is lower because the decoded value is then walked by recursive code
 * (pruning, validation, managed fields, `JSON.stringify`) on V8's fixed stack, and the `yaml` library
 * composes recursively: its stack gives out from about 825 levels of flow sequences (measured on Node 20
 * with the default stack), `JSON.stringify` from about 4,100. At this depth every write, read and watch
 * path of a custom resource with `x-kubernetes-preserve-unknown-fields` works (test/e2e/bad-input/).
 * Real objects nest a few dozen levels.
 */
export const maxNestingDepth = 500;

/**
 * The largest a YAML body's value may grow once its aliases are expanded (about its JSON size): twice the
 * body limit, so aliases cannot build more than a body could hold ("billion laughs").
 */
export const maxYamlExpandedBytes = 2 * maxRequestBodyBytes;

/**
 * Requirements a `labelSelector` or `fieldSelector` query may hold. Kubernetes sets no number (its URL is
 * bounded by the 1 MiB of header bytes); here every listed or watched object is matched against every
 * requirement on the one event loop, so a selector of hundreds of thousands of requirements would stall
 * every other request: 1,000 is far past any real selector (values of `in (...)` are a set and do not count).
 */
export const maxSelectorRequirements = 1000;
