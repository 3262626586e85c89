/**
 * Paths anyone may read without credentials (Kubernetes grants them to everyone through the
 * `system:public-info-viewer` role): health and version. Sub-paths of the health endpoints
 * (`/readyz/etcd`) are included.
 */
const healthRoots = ['/livez', '/readyz', '/healthz'];

export function isHealthPath(path: string): boolean {
  return healthRoots.some((root) => path === root || path.startsWith(`${root}/`));
}

export function isPublicPath(path: string): boolean {
  return path === '/version' || path === '/version/' || isHealthPath(path);
}
