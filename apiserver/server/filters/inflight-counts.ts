/** Told the in-flight counts each time a request starts (`apiserver_current_inflight_requests`' watermark). */
export interface InflightRecorder {
  recordInflight(readOnly: number, mutating: number): void;
}

const mutatingMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** kube's request kinds: POST, PUT, PATCH and DELETE are `mutating`, everything else `readOnly`. */
export function isMutatingMethod(method: string): boolean {
  return mutatingMethods.has(method);
}

/** Read-only and mutating requests executing now, shared by the max-in-flight and priority-and-fairness filters. */
export class InflightCounts {
  readOnly = 0;
  mutating = 0;
  constructor(private readonly recorder: InflightRecorder | undefined) {}

  start(mutating: boolean): void {
    if (mutating) this.mutating++;
    else this.readOnly++;
    this.recorder?.recordInflight(this.readOnly, this.mutating);
  }

  end(mutating: boolean): void {
    if (mutating) this.mutating--;
    else this.readOnly--;
  }
}
