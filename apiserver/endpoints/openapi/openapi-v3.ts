/**
 * The OpenAPI 3.0 document of one group version (`/openapi/v3/api/v1`, `/openapi/v3/apis/<g>/<v>`):
 * its paths and every schema they use.
 */
import type { Naming } from '../../naming/naming.js';
import { gitVersion } from '../version.js';
import { buildDefinitions, type GroupVersionEntry } from './definitions.js';
import { buildPaths, type PathOptions } from './paths.js';

export function openapiV3Document(naming: Naming, entry: GroupVersionEntry, o: PathOptions) {
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: gitVersion },
    paths: buildPaths(naming, 'v3', [entry], o),
    components: {
      schemas: buildDefinitions(naming, 'v3', [entry]),
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
    security: [{ BearerToken: [] }],
  };
}

/** The key of a group version in the v3 root: `api/v1`, `apis/apps/v1`. */
export const v3PathKey = (group: string, version: string): string => (group === '' ? `api/${version}` : `apis/${group}/${version}`);
