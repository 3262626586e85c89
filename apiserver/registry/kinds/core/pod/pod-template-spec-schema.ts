/** PodTemplateSpec: the metadata and spec of the pods a template stamps out. */
import { objectMetaSchema } from '../../../../schema/object-meta-schema.js';
import type { Schema } from '../../../../schema/schema.js';
import { podSpecSchema } from './pod-spec-schema.js';
import { obj } from './schema-builders.js';

export const podTemplateSpecSchema: Schema = obj('The pods created from a template.', {
  metadata: { ...objectMetaSchema, description: "Metadata of the pods (labels, annotations ...).", default: {} },
  spec: { ...podSpecSchema, description: 'Specification of the pods.', default: {} },
}, undefined, { protobuf: { metadata: 1, spec: 2 } });
