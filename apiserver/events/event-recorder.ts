/**
 * The server's own event recorder, after client-go's `record.EventRecorder` as Kubernetes' controllers use
 * it: core v1 Events written through the registry of core events (so validation, managedFields and
 * `--event-ttl` apply as to any other write), named `<object name>.<hex nanoseconds>`, in the object's
 * namespace (`default` for cluster-scoped objects), with `source.component` and `reportingComponent` the
 * recording controller's name.
 *
 * Repeats aggregate as client-go's event logger does: an event identical to one recorded before (same
 * source, object, type, reason and message) is not written again but bumps the first one's `count` and
 * `lastTimestamp`; if that event has expired meanwhile, it is written anew under its name with the
 * running count. The spam filter (spam-filter.ts) caps what one source records about one object.
 *
 * Recording never throws and never blocks the caller's work for long: `event()` resolves once the write
 * finished or failed (failures go to `onError`). Writes about the same event are serialized so a repeat
 * never races the create it bumps.
 */
import type { KubeObject } from '../api/object.js';
import { isStatusError } from '../errors/status-error.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import { rfc3339 } from '../registry/generic/system-fields.js';
import { DEFAULT_NAMESPACE } from '../registry/kinds/core/event-validation.js';
import { Lru } from './lru.js';
import type { ObjectReference } from './object-reference.js';
import { SpamFilter } from './spam-filter.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** Records that `reason` happened to the referenced object; resolves when written (or dropped). */
  event(about: ObjectReference, type: EventType, reason: string, message: string): Promise<void>;
}

export interface EventRecorderOptions {
  /** The registry of core v1 events. */
  readonly events: GenericRegistry;
  /** The recording controller (`namespace-controller`): source.component and reportingComponent. */
  readonly component: string;
  /** The instance (host) recording: source.host and reportingInstance. Default none. */
  readonly host?: string;
  readonly now?: () => Date;
  readonly spamFilter?: SpamFilter;
  readonly onError?: (err: unknown) => void;
}

interface Seen {
  readonly name: string;
  readonly namespace: string;
  readonly firstTimestamp: string;
  count: number;
}

/**
 * client-go's name suffix: the time in Unix nanoseconds, in hex. The clock has milliseconds only, so two
 * events of one millisecond would collide: each suffix is at least one nanosecond after the previous one.
 */
function suffixClock(): (t: Date) => string {
  let last = 0n;
  return (t) => {
    let ns = BigInt(t.getTime()) * 1_000_000n;
    if (ns <= last) ns = last + 1n;
    last = ns;
    return ns.toString(16);
  };
}

function refKey(ref: ObjectReference): string {
  return [ref.kind, ref.namespace, ref.name, ref.uid, ref.apiVersion, ref.fieldPath].map((p) => p ?? '').join('\u0000');
}

export function createEventRecorder(o: EventRecorderOptions): EventRecorder {
  const now = o.now ?? (() => new Date());
  const host = o.host ?? '';
  const source = host === '' ? { component: o.component } : { component: o.component, host };
  const seen = new Lru<Seen>();
  const spam = o.spamFilter ?? new SpamFilter();
  const inFlight = new Map<string, Promise<void>>();
  const nameSuffix = suffixClock();

  const eventObject = (about: ObjectReference, type: EventType, reason: string, message: string, s: Seen, at: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: s.name, namespace: s.namespace },
    involvedObject: { ...about },
    reason,
    message,
    source,
    firstTimestamp: s.firstTimestamp,
    lastTimestamp: at,
    count: s.count,
    type,
    reportingComponent: o.component,
    reportingInstance: host,
  });

  const write = async (about: ObjectReference, type: EventType, reason: string, message: string, key: string): Promise<void> => {
    const t = now();
    const at = rfc3339(t);
    const sourceKey = `${o.component}\u0000${host}\u0000${refKey(about)}`;
    if (!spam.allow(sourceKey, t.getTime())) return;
    const previous = seen.get(key);
    const opts = { fieldManager: o.component };
    if (previous === undefined) {
      const s: Seen = { name: `${about.name ?? ''}.${nameSuffix(t)}`, namespace: about.namespace || DEFAULT_NAMESPACE, firstTimestamp: at, count: 1 };
      await o.events.create(s.namespace, eventObject(about, type, reason, message, s, at), opts);
      seen.set(key, s);
      return;
    }
    previous.count++;
    try {
      await o.events.patch(previous.namespace, previous.name, (current) => ({ ...current, count: previous.count, lastTimestamp: at }), opts);
    } catch (err) {
      // Expired (--event-ttl) or deleted meanwhile: write it again, as client-go does, with the running count.
      if (!isStatusError(err) || err.code !== 404) throw err;
      await o.events.create(previous.namespace, eventObject(about, type, reason, message, previous, at), opts);
    }
  };

  return {
    event(about, type, reason, message) {
      const key = `${refKey(about)}\u0000${type}\u0000${reason}\u0000${message}`;
      const before = inFlight.get(key) ?? Promise.resolve();
      const mine = before
        .then(() => write(about, type, reason, message, key))
        .catch((err: unknown) => o.onError?.(err))
        .finally(() => {
          if (inFlight.get(key) === mine) inFlight.delete(key);
        });
      inFlight.set(key, mine);
      return mine;
    },
  };
}
