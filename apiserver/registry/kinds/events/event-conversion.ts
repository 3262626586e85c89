/**
 * events.k8s.io/v1 Event <-> core/v1 Event, as Kubernetes converts them: the same data under other names
 * (regarding/involvedObject, note/message, reportingController/reportingComponent, and the core fields the
 * new API keeps only as `deprecated*`). Fields not renamed (metadata, eventTime, series, action, reason,
 * related, type, reportingInstance) are carried as they are, shared with the input.
 *
 * Go omits an empty reportingController or reportingInstance in events.k8s.io JSON but always writes
 * reportingComponent and reportingInstance in core JSON; the conversions follow, so an event reads the
 * same through either API whichever wrote it.
 */
import type { KubeObject } from '../../../api/object.js';

/** events.k8s.io/v1 field -> core/v1 field. */
const TO_CORE: Readonly<Record<string, string>> = Object.freeze({
  regarding: 'involvedObject',
  note: 'message',
  reportingController: 'reportingComponent',
  deprecatedSource: 'source',
  deprecatedFirstTimestamp: 'firstTimestamp',
  deprecatedLastTimestamp: 'lastTimestamp',
  deprecatedCount: 'count',
});

const FROM_CORE: Readonly<Record<string, string>> = Object.freeze(Object.fromEntries(Object.entries(TO_CORE).map(([a, b]) => [b, a])));

function renamed(obj: KubeObject, names: Readonly<Record<string, string>>): KubeObject {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) out[names[key] ?? key] = obj[key];
  return out as KubeObject;
}

/** The core/v1 shape of an events.k8s.io/v1 Event (a new object; `ev` is not changed). */
export function eventToCore(ev: KubeObject): KubeObject {
  const out = renamed(ev, TO_CORE);
  out.reportingComponent ??= '';
  out.reportingInstance ??= '';
  return out;
}

/** The events.k8s.io/v1 shape of a core/v1 Event (a new object; `ev` is not changed). */
export function eventFromCore(ev: KubeObject): KubeObject {
  const out = renamed(ev, FROM_CORE);
  if (out.reportingController === '') delete out.reportingController;
  if (out.reportingInstance === '') delete out.reportingInstance;
  return out;
}
