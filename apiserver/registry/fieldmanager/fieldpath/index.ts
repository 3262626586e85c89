/** The field-set algebra of server-side apply (shared with custom resources, whose schemas come from definitions). */
export * from './path-element.js';
export * from './set.js';
export * from './fields-v1.js';
export * from './schema-types.js';
export * from './from-object.js';
