/**
 * Problems and warnings of the company document (spec write rules 1 and 3), and the mapping of zod
 * issues onto the spec's seven problem kinds. Messages are written here, never copied from the
 * input: a message names fields, limits and allowed values, never a value the operator wrote, so a
 * credential in the wrong place cannot leak through a refusal.
 */
import type { z } from 'zod';
import { unknownFieldMessage } from '../did-you-mean.js';
import type { Problem } from '../problems.js';

export const ProblemKind = {
  Missing: 'missing',
  UnknownValue: 'unknown_value',
  OutOfRange: 'out_of_range',
  Conflict: 'conflict',
  UnknownField: 'unknown_field',
  Shape: 'shape',
  Invalid: 'invalid',
} as const;
export type ProblemKind = (typeof ProblemKind)[keyof typeof ProblemKind];

export const WarningKind = {
  DanglingReference: 'dangling_reference',
  Admission: 'admission',
  /** A `${VAR}` that resolves to nothing (or to empty) on the node that took the write. */
  UnresolvedReference: 'unresolved_reference',
  /** A setting this release accepts but does nothing with (not-applied.ts). */
  NotApplied: 'not_applied',
  /** An agent seat left with no provider chain: `providers.llm` holds no entry (no-provider.ts). */
  NoProvider: 'no_provider',
  /** A native work project key a unit declares after another unit did (project-twins.ts). */
  DuplicateProject: 'duplicate_project',
  /** A write changing the company `name`: every seat gets a new agent id (company-renamed.ts). */
  CompanyRenamed: 'company_renamed',
} as const;
export type WarningKind = (typeof WarningKind)[keyof typeof WarningKind];

/** What a dangling reference points from: a unit lead, a seat's unit, `manages`, an access level, a transport's selection. */
export const ReferenceKind = {
  Lead: 'lead',
  Unit: 'unit',
  Manages: 'manages',
  AccessLevel: 'codehost_b_access_level',
  /** A notification transport's `events` entry that names no recorded event type. */
  EventType: 'event_type',
  /** A notification transport's `seats` entry that names no seat handle. */
  TransportSeat: 'transport_seat',
} as const;
export type ReferenceKind = (typeof ReferenceKind)[keyof typeof ReferenceKind];

export type Segment = string | number;

export interface CompanyProblem extends Problem {
  readonly segments: Segment[];
  readonly kind: ProblemKind;
  /** Handle of the seat the problem sits in. */
  readonly seat?: string;
  /** Name of the unit the problem sits in (for a seat: the unit it is placed in). */
  readonly unit?: string;
  /** 1-based YAML line of the offending node (the parent's line for a missing key). */
  readonly line?: number;
}

export interface CompanyWarning {
  readonly kind: WarningKind;
  readonly ref?: ReferenceKind;
  readonly path: string;
  readonly segments: Segment[];
  readonly seat?: string;
  readonly unit?: string;
  /** The referring entity (seat handle or unit name). */
  readonly from?: string;
  /** The name it refers to, as written. */
  readonly to?: string;
  readonly message: string;
  readonly line?: number;
}

/** A finding before attribution (seat, unit, line) is added. */
export interface Finding {
  readonly segments: Segment[];
  readonly kind: ProblemKind;
  readonly message: string;
}

/** Dotted path with `[i]` indexes, as the spec's problems name fields. */
export function pathOf(segments: readonly Segment[]): string {
  let out = '';
  for (const step of segments) {
    if (typeof step === 'number') out += `[${step}]`;
    else out += out === '' ? step : `.${step}`;
  }
  return out;
}

/** The value at `segments` in a parsed document, or undefined. */
export function valueAt(root: unknown, segments: readonly Segment[]): unknown {
  let node = root;
  for (const step of segments) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[step as string];
  }
  return node;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  return `a ${typeof value}`;
}

function article(expected: string): string {
  const names: Record<string, string> = {
    object: 'a map',
    array: 'a list',
    string: 'a string',
    number: 'a number',
    int: 'an integer',
    boolean: 'true or false',
    record: 'a map',
  };
  return names[expected] ?? expected;
}

function bound(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig, small: boolean): string {
  const limit = String('minimum' in issue ? issue.minimum : issue.maximum);
  const cmp = small
    ? issue.inclusive
      ? 'at least'
      : 'more than'
    : issue.inclusive
      ? 'at most'
      : 'less than';
  switch (issue.origin) {
    case 'string':
      return small && limit === '1' ? 'must not be empty' : `must be ${cmp} ${limit} characters long`;
    case 'array':
    case 'set':
      return small && limit === '1' ? 'must list at least one entry' : `must list ${cmp} ${limit} entries`;
    default:
      return `must be ${cmp} ${limit}`;
  }
}

/** True when the key at the end of `segments` is not written in its map (a list entry is never absent). */
function isAbsent(input: unknown, segments: readonly Segment[]): boolean {
  const parent = valueAt(input, segments.slice(0, -1));
  const last = segments[segments.length - 1];
  return (
    segments.length > 0 &&
    parent !== null &&
    typeof parent === 'object' &&
    !Array.isArray(parent) &&
    !Object.prototype.hasOwnProperty.call(parent, last as string)
  );
}

/**
 * One zod issue as findings (an unrecognized-keys issue is one finding per key). `knownAt` names the
 * keys a location may hold, for the did-you-mean of an unknown field.
 */
export function findingsOf(
  issue: z.core.$ZodIssue,
  input: unknown,
  knownAt: (segments: Segment[]) => ReadonlySet<string> | 'any' = () => 'any',
): Finding[] {
  const segments = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        segments: [...segments, key],
        kind: ProblemKind.UnknownField,
        message: unknownFieldMessage(key, knownAt(segments)),
      }));
    case 'invalid_type': {
      if (isAbsent(input, segments)) return [{ segments, kind: ProblemKind.Missing, message: 'required' }];
      const got = describeType(valueAt(input, segments));
      return [
        { segments, kind: ProblemKind.Shape, message: `expected ${article(issue.expected)}, got ${got}` },
      ];
    }
    case 'invalid_value': {
      const choices = issue.values.map((v) => String(v)).join(', ');
      // zod reports a required choice left out as a value outside the choices; the spec's kind is `missing`.
      return isAbsent(input, segments)
        ? [{ segments, kind: ProblemKind.Missing, message: `required: one of ${choices}` }]
        : [{ segments, kind: ProblemKind.UnknownValue, message: `expected one of ${choices}` }];
    }
    case 'too_small':
      return [{ segments, kind: ProblemKind.OutOfRange, message: bound(issue, true) }];
    case 'too_big':
      return [{ segments, kind: ProblemKind.OutOfRange, message: bound(issue, false) }];
    case 'not_multiple_of':
      return [
        { segments, kind: ProblemKind.OutOfRange, message: `must be a multiple of ${String(issue.divisor)}` },
      ];
    case 'invalid_format':
      // Our regex checks carry their own message; zod's defaults name the format, never the input.
      return [
        {
          segments,
          kind: ProblemKind.Invalid,
          message: issue.format === 'regex' ? issue.message : `not a valid ${issue.format}`,
        },
      ];
    case 'invalid_union':
      return [{ segments, kind: ProblemKind.Shape, message: 'does not match any accepted form' }];
    case 'invalid_key':
      return [{ segments, kind: ProblemKind.Invalid, message: 'invalid key' }];
    case 'invalid_element':
      return [{ segments, kind: ProblemKind.Invalid, message: 'invalid entry' }];
    case 'custom': {
      const kind = (issue.params as { kind?: ProblemKind } | undefined)?.kind ?? ProblemKind.Invalid;
      return [{ segments, kind, message: issue.message }];
    }
  }
}
