/**
 * Ratcheting (ops/config.md "Rules added since a revision was stored"): a problem the active revision
 * already holds, at the same path with the same value, is not the write's doing, so it is answered as an
 * `admission` warning instead of refusing the write. A rule added or tightened in a release then refuses
 * new values without trapping a document an earlier release stored: an edit of another entity, a
 * reload, or a full PUT that keeps the value still goes through. A write that brings the problem anew (a
 * new path, or a changed value at the old one) is refused as before.
 */
import { jsonEqual } from '../document/json.js';
import { keyRules } from './admission-names.js';
import { envNameRule } from './admission-toolservers.js';
import type { CompanyProblem, Segment } from './problems.js';
import { isRecord } from './walk.js';

/** The active revision a write is judged against: its opened document and its own problems. */
export interface RatchetBasis {
  readonly document: unknown;
  readonly problems: ReadonlyArray<CompanyProblem>;
}

const keyOf = (p: CompanyProblem): string => `${p.path}\u0000${p.kind}\u0000${p.message}`;

/** The value at `segments`, undefined where the path breaks off. */
function valueAt(doc: unknown, segments: readonly Segment[]): unknown {
  let at: unknown = doc;
  for (const segment of segments) {
    if (typeof segment === 'number') at = Array.isArray(at) ? at[segment] : undefined;
    else at = isRecord(at) ? at[segment] : undefined;
  }
  return at;
}

const keyRuleOf = new Map<string, (key: string) => boolean>(
  keyRules.map((rule) => [`${rule.path}\u0000${rule.message}`, rule.offends]),
);

/** Which keys of the map a problem sits on break its rule; undefined for a problem on a value. */
const keyRuleFor = (problem: CompanyProblem): ((key: string) => boolean) | undefined =>
  // An env map sits at many paths (each tool server's, each seat's and unit's mcp_env): known by its message.
  problem.message === envNameRule.message
    ? envNameRule.offends
    : keyRuleOf.get(`${problem.path}\u0000${problem.message}`);

/**
 * Whether the write's value at a problem's path is the active revision's. For a rule on a map's keys: whether
 * every key breaking it was in the active map (its other entries may change, come and go).
 */
function sameValue(problem: CompanyProblem, document: unknown, basis: RatchetBasis): boolean {
  const now = valueAt(document, problem.segments);
  const before = valueAt(basis.document, problem.segments);
  const offends = keyRuleFor(problem);
  if (offends === undefined || !isRecord(now) || !isRecord(before)) return jsonEqual(now, before);
  return Object.keys(now)
    .filter(offends)
    .every((key) => Object.hasOwn(before, key));
}

/** Splits `problems` into those the write brings (kept) and those the active revision already holds. */
export function ratchet(
  problems: readonly CompanyProblem[],
  document: unknown,
  basis: RatchetBasis,
): { kept: CompanyProblem[]; held: CompanyProblem[] } {
  const before = new Set(basis.problems.map(keyOf));
  const kept: CompanyProblem[] = [];
  const held: CompanyProblem[] = [];
  for (const problem of problems) {
    const same = before.has(keyOf(problem)) && sameValue(problem, document, basis);
    (same ? held : kept).push(problem);
  }
  return { kept, held };
}

/** The warning message of a problem the active revision already holds. */
export const heldMessage = (message: string): string =>
  `${message} (the active revision already holds this, so it is not refused here; a write that brings it anew is)`;
