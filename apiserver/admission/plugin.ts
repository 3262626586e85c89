/**
 * An admission plugin: a name and what it does in either phase. Mutating plugins run first, in chain
 * order, before the kind's defaults, preparation and validation; validating plugins run after the kind's
 * validation, right before the store write (Kubernetes' order: mutating admission, schema validation,
 * validating admission). A plugin denies by throwing a StatusError (its code and reason are the answer).
 */
import type { AdmissionAttributes, AdmissionOperation } from './attributes.js';

export interface AdmissionPlugin {
  readonly name: string;
  /** The operations the plugin looks at; default every one. */
  readonly operations?: readonly AdmissionOperation[];
  /** Mutating phase: may change `attributes.object`. */
  admit?(attributes: AdmissionAttributes): Promise<void> | void;
  /** Validating phase: changes nothing. */
  validate?(attributes: AdmissionAttributes): Promise<void> | void;
}
