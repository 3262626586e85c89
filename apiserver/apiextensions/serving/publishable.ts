/**
 * Whether a definition's kinds can be published: its discovery documents and OpenAPI documents (v2 and
 * v3) build on their own. Checked before a definition is served, because discovery and OpenAPI are built
 * from every served kind together: one definition whose schema the publishers cannot handle must not take
 * `/apis` or `/openapi` down for every client, so it is not served and the problem is reported instead.
 */
import type { Naming } from '../../naming/naming.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import { discoveryDocuments } from '../../endpoints/discovery/discovery-documents.js';
import { openapiDocuments } from '../../endpoints/openapi/openapi-documents.js';

/** Throws what the publishers throw for `kinds`. */
export function checkPublishable(kinds: readonly KindStrategy[], naming: Naming): void {
  discoveryDocuments(kinds, naming);
  const docs = openapiDocuments(kinds, naming, undefined, { strategicMergePatch: (k) => k.strategicMergePatch !== false, cbor: false });
  docs.v2();
}
