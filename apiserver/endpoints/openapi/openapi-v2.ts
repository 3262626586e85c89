/** The Swagger 2.0 document of everything served (`/openapi/v2`). */
import type { Naming } from '../../naming/naming.js';
import { gitVersion } from '../version.js';
import { buildDefinitions, type GroupVersionEntry } from './definitions.js';
import { buildPaths, type PathOptions } from './paths.js';

export function openapiV2Document(naming: Naming, entries: readonly GroupVersionEntry[], o: PathOptions) {
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: gitVersion },
    paths: buildPaths(naming, 'v2', entries, o),
    definitions: buildDefinitions(naming, 'v2', entries),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}
