/**
 * Where an APIService's backend is reached. Kubernetes resolves the Service (its cluster IP, or an
 * endpoint with `--enable-aggregator-routing`); this server does not serve Services (issue 14), so the
 * default resolver dials the Service's DNS name `<name>.<namespace>.svc` at the APIService's port, which
 * works wherever cluster DNS (or /etc/hosts) knows it. Tests and embedders inject another resolver through
 * `StartOptions` (a test maps the Service to its loopback backend). Whatever the address, TLS verifies the
 * backend as `<name>.<namespace>.svc`, as kube-aggregator does.
 *
 * A resolver throws `ServiceNotFoundError` when it knows the Service does not exist (the availability
 * condition then reads ServiceNotFound); any other throw is a failed discovery check.
 */
import type { ServiceReference } from '../registry/kinds/apiregistration/apiservice-conditions.js';

export interface ResolvedEndpoint {
  readonly host: string;
  readonly port: number;
}

export type ServiceResolver = (service: ServiceReference) => ResolvedEndpoint | Promise<ResolvedEndpoint>;

export class ServiceNotFoundError extends Error {
  override readonly name = 'ServiceNotFoundError';
}

/** The name a backend's serving certificate must carry. */
export const serviceServerName = (s: Pick<ServiceReference, 'namespace' | 'name'>): string => `${s.name}.${s.namespace}.svc`;

/** The default: the Service's DNS name and the APIService's port. */
export const dnsServiceResolver: ServiceResolver = (s) => ({ host: serviceServerName(s), port: s.port });
