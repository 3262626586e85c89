/**
 * Limits every request is held to, shared by the filters in `server/` and the handlers in `endpoints/`.
 */

/** Largest request body, as kube-apiserver (etcd itself takes 1.5 MiB per value). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;
