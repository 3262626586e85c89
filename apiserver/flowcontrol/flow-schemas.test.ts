import { naming } from '../naming/naming.js';
import { parseRequestInfo } from '../request/request-info.js';
import type { UserInfo } from '../auth/user-info.js';
import { builtinFlowSchemas, classify, flowDistinguisher, stableUid, type ClassifiedRequest } from './flow-schemas.js';
import { builtinPriorityLevels, nominalConcurrencyLimits } from './priority-levels.js';
import { FlowControl } from './flow-control.js';

const schemas = builtinFlowSchemas(naming('platform.io'));
const authed = 'system:authenticated';

function request(user: UserInfo, method: string, path: string): ClassifiedRequest {
  let parsed = 0;
  return {
    user,
    method,
    path,
    info: () => {
      parsed++;
      return parseRequestInfo(method, path, new URLSearchParams());
    },
    get parsed() {
      return parsed;
    },
  } as ClassifiedRequest;
}

const who = (name: string, ...groups: string[]): UserInfo => ({ name, uid: '', groups });

describe('built-in flow schemas', () => {
  it('are sorted by matching precedence with kube 1.32 names and levels', () => {
    expect(schemas.map((s) => `${s.matchingPrecedence} ${s.name} ${s.priorityLevel}`)).toEqual([
      '1 exempt exempt',
      '2 probes exempt',
      '100 system-leader-election leader-election',
      '150 endpoint-controller workload-high',
      '200 workload-leader-election leader-election',
      '400 system-node-high node-high',
      '500 system-nodes system',
      '800 kube-controller-manager workload-high',
      '800 kube-scheduler workload-high',
      '900 kube-system-service-accounts workload-high',
      '9000 service-accounts workload-low',
      '9900 global-default global-default',
      '10000 catch-all catch-all',
    ]);
  });

  it.each([
    ['system:masters', who('admin', 'system:masters', authed), 'POST', '/api/v1/namespaces/default/configmaps', 'exempt'],
    ['a probe of /healthz', who('system:anonymous', 'system:unauthenticated'), 'GET', '/healthz', 'probes'],
    ['a probe of /readyz by a user', who('alice', authed), 'GET', '/readyz', 'probes'],
    ['a sub-check is not a probe (kube lists exact paths)', who('alice', authed), 'GET', '/readyz/etcd', 'global-default'],
    ['a POST to /healthz is not a probe', who('alice', authed), 'POST', '/healthz', 'global-default'],
    ['a user', who('alice', authed), 'GET', '/api/v1/namespaces/default/pods', 'global-default'],
    ['anonymous', who('system:anonymous', 'system:unauthenticated'), 'GET', '/api', 'global-default'],
    ['a service account', who('system:serviceaccount:team:builder', 'system:serviceaccounts', 'system:serviceaccounts:team', authed),
      'GET', '/api/v1/namespaces/team/pods', 'service-accounts'],
    ['a system service account renewing its lease', who('system:serviceaccount:platform-system:ctrl', 'system:serviceaccounts', authed),
      'PUT', '/apis/coordination.platform.io/v1/namespaces/platform-system/leases/ctrl', 'system-leader-election'],
    ['a system service account listing pods', who('system:serviceaccount:platform-system:ctrl', 'system:serviceaccounts', authed),
      'GET', '/api/v1/pods', 'kube-system-service-accounts'],
    ['the endpoint controller', who('system:serviceaccount:platform-system:endpoint-controller', 'system:serviceaccounts', authed),
      'PUT', '/api/v1/namespaces/default/endpoints/x', 'endpoint-controller'],
    ['a node updating its status', who('system:node:n1', 'system:nodes', authed), 'PUT', '/api/v1/nodes/n1/status', 'system-node-high'],
    ['a node listing pods', who('system:node:n1', 'system:nodes', authed), 'GET', '/api/v1/pods', 'system-nodes'],
    ['the controller manager', who('system:kube-controller-manager', authed), 'GET', '/api/v1/namespaces/a/pods', 'kube-controller-manager'],
    ['a user without the all-users groups', who('odd'), 'GET', '/api', 'catch-all'],
  ])('classifies %s', (_, user, method, path, expected) => {
    expect(classify(schemas, request(user, method, path)).name).toBe(expected);
  });

  it('parses the request info only for schemas with resource rules whose subjects matched', () => {
    const admin = request(who('admin', 'system:masters', authed), 'GET', '/api/v1/pods') as ClassifiedRequest & { parsed: number };
    classify(schemas, admin);
    expect(admin.parsed).toBe(0);
    const user = request(who('alice', authed), 'GET', '/api/v1/pods') as ClassifiedRequest & { parsed: number };
    classify(schemas, user);
    expect(user.parsed).toBe(0);
  });

  it('names flows by user or by namespace as the schema says', () => {
    const alice = request(who('alice', authed), 'GET', '/api/v1/namespaces/a/pods');
    expect(flowDistinguisher(classify(schemas, alice), alice)).toBe('alice');
    const kcm = request(who('system:kube-controller-manager', authed), 'GET', '/api/v1/namespaces/a/pods');
    expect(flowDistinguisher(classify(schemas, kcm), kcm)).toBe('a');
    const admin = request(who('admin', 'system:masters'), 'GET', '/api');
    expect(flowDistinguisher(classify(schemas, admin), admin)).toBe('');
  });

  it('gives each schema a stable UUID', () => {
    expect(stableUid('FlowSchema', 'exempt')).toBe(stableUid('FlowSchema', 'exempt'));
    expect(stableUid('FlowSchema', 'exempt')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(schemas.map((s) => s.uid)).size).toBe(schemas.length);
  });

  it('follows the group domain: k8s.io names kube-system and coordination.k8s.io', () => {
    const kube = builtinFlowSchemas(naming('k8s.io'));
    const sa = who('system:serviceaccount:kube-system:ctrl', 'system:serviceaccounts', authed);
    expect(classify(kube, request(sa, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ctrl')).name).toBe('system-leader-election');
  });
});

describe('priority levels', () => {
  it('split the default 600 seats by kube\'s nominal concurrency shares', () => {
    expect(Object.fromEntries(nominalConcurrencyLimits(builtinPriorityLevels, 600))).toEqual({
      system: 74, 'node-high': 98, 'leader-election': 25, 'workload-high': 98, 'workload-low': 245, 'global-default': 49, 'catch-all': 13,
    });
  });

  it('give every level at least one seat with tiny limits', () => {
    const limits = nominalConcurrencyLimits(builtinPriorityLevels, 3);
    for (const v of limits.values()) expect(v).toBeGreaterThanOrEqual(1);
    expect(limits.get('global-default')).toBe(1);
  });
});

describe('FlowControl', () => {
  it('exempt requests start even when every seat of the other levels is taken', () => {
    const fc = new FlowControl({ naming: naming('platform.io'), totalConcurrency: 15, waitLimitMs: 1000 });
    const alice = request(who('alice', authed), 'GET', '/api');
    const fs = fc.classify(alice);
    const seats = fc.levels.get('global-default')!.concurrencyLimit;
    expect(seats).toBe(2);
    for (let i = 0; i < seats; i++) expect(fs.tryStart()).toBe(true);
    expect(fs.tryStart()).toBe(false);
    const admin = fc.classify(request(who('admin', 'system:masters'), 'GET', '/api'));
    const probe = fc.classify(request(who('system:anonymous', 'system:unauthenticated'), 'GET', '/livez'));
    for (let i = 0; i < 100; i++) {
      expect(admin.tryStart()).toBe(true);
      expect(probe.tryStart()).toBe(true);
    }
    // Another user's level (service accounts) has its own seats.
    const sa = fc.classify(request(who('system:serviceaccount:x:y', 'system:serviceaccounts', authed), 'GET', '/api'));
    expect(sa.schema.priorityLevel).toBe('workload-low');
    expect(sa.tryStart()).toBe(true);
  });

  it('with no total limit every level admits everything', () => {
    const fc = new FlowControl({ naming: naming('platform.io'), totalConcurrency: 0, waitLimitMs: 1000 });
    const fs = fc.classify(request(who('alice', authed), 'GET', '/api'));
    for (let i = 0; i < 1000; i++) expect(fs.tryStart()).toBe(true);
  });
});
