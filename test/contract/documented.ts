/**
 * The differences between the client's checks and the sandbox's that docs/shapes.md lists, each
 * with its reason there ("Where the client and the sandbox judge differently"). A disagreement
 * the contract test finds is allowed only when one of these describes it.
 */
import type { Entry, Field } from './catalogue.js';

export interface Disagreement {
  entry: Entry;
  field: Field;
  value: unknown;
  /** refused: RequestValidationError (or ConfigurationError) before anything was sent. */
  client: 'refused' | 'sent';
  /** refused: 400 VALIDATION_ERROR or MISSING_FIELDS; unsendable: the wire cannot carry the value. */
  sandbox: 'refused' | 'accepted' | 'unsendable';
  /** The sandbox's status and code, for the report. */
  answer: string;
}

export interface DocumentedDifference {
  /** As written in docs/shapes.md. */
  id: string;
  applies(d: Disagreement): boolean;
}

/** The JavaScript type a query field's value has on the client (the wire carries only text). */
function queryTypeMatches(field: Field, value: unknown): boolean {
  if (field.kind.type === 'int') return typeof value === 'number';
  return typeof value === 'string';
}

function isIdValue(value: unknown): boolean {
  return (typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value));
}

export const DOCUMENTED: DocumentedDifference[] = [
  {
    id: 'typed-query',
    applies: (d) => d.field.in === 'query' && d.client === 'refused' && d.sandbox === 'accepted' && !queryTypeMatches(d.field, d.value),
  },
  {
    id: 'blank-path-parameter',
    applies: (d) => d.field.in === 'path' && d.client === 'refused' && d.sandbox === 'accepted' && !isIdValue(d.value),
  },
  {
    id: 'absent-body',
    applies: (d) => d.field.in === 'body' && d.field.name === '' && d.value === undefined && d.client === 'refused' && d.sandbox === 'accepted',
  },
  {
    id: 'body-not-shown',
    applies: (d) =>
      d.entry.nameOnly === true &&
      d.client === 'sent' &&
      d.sandbox === 'refused' &&
      (d.field.kind.type === 'json' || d.field.kind.type === 'object' || d.value === undefined),
  },
];
