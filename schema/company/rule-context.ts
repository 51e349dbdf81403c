/** What a cross-field rule sees and how it reports; validate.ts adds attribution and lines. */
import type { Finding, ProblemKind, ReferenceKind, Segment } from './problems.js';
import type { Json, Walk } from './walk.js';

export interface DanglingFinding {
  readonly segments: Segment[];
  readonly ref: ReferenceKind;
  readonly from?: string;
  readonly to: string;
  readonly message: string;
}

export interface RuleContext {
  /** The document as parsed; rules check types defensively since it may be invalid. */
  readonly doc: Json;
  readonly walk: Walk;
  /** A refusal in every mode. */
  problem(segments: Segment[], kind: ProblemKind, message: string): void;
  /** A warning in every mode (spec write rule 1). */
  dangling(finding: DanglingFinding): void;
  /** A refusal for a new write; a warning of kind `admission` when a stored revision is reloaded. */
  admission(segments: Segment[], kind: ProblemKind, message: string): void;
}

export interface RuleFindings {
  readonly problems: Finding[];
  readonly dangling: DanglingFinding[];
  readonly admission: Finding[];
}

export function collectFindings(
  doc: Json,
  walk: Walk,
  rules: ReadonlyArray<(ctx: RuleContext) => void>,
): RuleFindings {
  const found: RuleFindings = { problems: [], dangling: [], admission: [] };
  const ctx: RuleContext = {
    doc,
    walk,
    problem: (segments, kind, message) => found.problems.push({ segments, kind, message }),
    dangling: (finding) => found.dangling.push(finding),
    admission: (segments, kind, message) => found.admission.push({ segments, kind, message }),
  };
  for (const rule of rules) rule(ctx);
  return found;
}

export const asString = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;
export const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
