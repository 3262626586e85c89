/**
 * kube-apiserver 1.32's authentication and authorization filter metrics (`endpoints/filters`):
 * `authentication_attempts{result}` and `authentication_duration_seconds{result}` with results
 * `success` (a user, anonymous included), `failure` (no credentials and no anonymous access: 401) and
 * `error` (credentials presented and rejected, or an authenticator failed); `authorization_attempts_total`
 * and `authorization_duration_seconds` with `allowed`, `denied`, `no-opinion` (no authorizer decided:
 * 403 as well) and `error`. Both histograms use kube's buckets, 1 ms doubling 15 times.
 *
 * kube's `authenticated_user_requests{username}` is left out: it puts (compressed) user names in a label.
 * Every series is resolved when this is built, so recording is a field write and a bucket scan.
 */
import type { Registry } from 'prom-client';
import { CounterFamily, HistogramFamily, exponentialBuckets, type CounterCell, type HistogramCell } from './metric-families.js';

export type AuthenticationResult = 'success' | 'failure' | 'error';
export type AuthorizationResult = 'allowed' | 'denied' | 'no-opinion' | 'error';

export const AUTH_DURATION_BUCKETS = exponentialBuckets(0.001, 2, 15);

interface Series {
  readonly attempts: CounterCell;
  readonly duration: HistogramCell;
}

export class AuthMetrics {
  readonly #authn: Readonly<Record<AuthenticationResult, Series>>;
  readonly #authz: Readonly<Record<AuthorizationResult, Series>>;

  constructor(registry: Registry) {
    const authnAttempts = new CounterFamily({ registry, name: 'authentication_attempts', help: 'Counter of authenticated attempts.', labelNames: ['result'] });
    const authnDuration = new HistogramFamily({
      registry,
      name: 'authentication_duration_seconds',
      help: 'Authentication duration in seconds broken out by result.',
      labelNames: ['result'],
      buckets: AUTH_DURATION_BUCKETS,
    });
    const authzAttempts = new CounterFamily({
      registry,
      name: 'authorization_attempts_total',
      help: "Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.",
      labelNames: ['result'],
    });
    const authzDuration = new HistogramFamily({
      registry,
      name: 'authorization_duration_seconds',
      help: 'Authorization duration in seconds broken out by result.',
      labelNames: ['result'],
      buckets: AUTH_DURATION_BUCKETS,
    });
    const authn = (r: AuthenticationResult): Series => ({ attempts: authnAttempts.child(r), duration: authnDuration.child(r) });
    const authz = (r: AuthorizationResult): Series => ({ attempts: authzAttempts.child(r), duration: authzDuration.child(r) });
    this.#authn = { success: authn('success'), failure: authn('failure'), error: authn('error') };
    this.#authz = { allowed: authz('allowed'), denied: authz('denied'), 'no-opinion': authz('no-opinion'), error: authz('error') };
  }

  authentication(result: AuthenticationResult, seconds: number): void {
    const s = this.#authn[result];
    s.attempts.value++;
    s.duration.observe(seconds);
  }

  authorization(result: AuthorizationResult, seconds: number): void {
    const s = this.#authz[result];
    s.attempts.value++;
    s.duration.observe(seconds);
  }
}
