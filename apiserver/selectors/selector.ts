/**
 * Parsed label and field selectors, as the registry consumes them. The parsers (label-selector.ts,
 * field-selector.ts) produce these; a syntax error is a 400 BadRequest StatusError thrown by the parser.
 */

export type LabelOperator = 'in' | 'notin' | 'exists' | '!' | '=' | '==' | '!=' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted; empty for `exists` and `!`. */
  readonly values: readonly string[];
}

export interface LabelSelector {
  /** Empty: matches everything. */
  readonly requirements: readonly LabelRequirement[];
  readonly empty: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** Canonical text (`a=b,c in (d,e)`), stable for equal selectors. */
  toString(): string;
}

export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '==' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  /** `fields` maps each supported field label to the object's value (see KindStrategy.selectableFields). */
  matches(fields: Readonly<Record<string, string>>): boolean;
  toString(): string;
}
