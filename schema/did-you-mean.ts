/**
 * The closest known name to a misspelled one, for "unknown field `scedules`; did you mean `schedules`?".
 * Optimal string alignment distance (an adjacent swap costs one, as `prot` for `port`), compared
 * case-insensitively; a suggestion must be close enough that it is likely what was meant.
 */

import { cutForQuote } from './text-grammars.js';

/** Edits (insert, delete, substitute, swap neighbours) between two strings. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** The longest word a suggestion is drawn for: longer than any name (company, unit, seat: 100). */
const SUGGESTED_MAX = 100;

/**
 * The candidate nearest `word` (first in order on a tie), or null when none is within a third of the
 * word's length (at least one edit), so `surprise` suggests nothing while `scedules` suggests `schedules`.
 *
 * @example closestName('scedules', ['name', 'schedules']) // 'schedules'
 */
export function closestName(word: string, candidates: Iterable<string>): string | null {
  // The distance is quadratic in the two lengths: a 100,000-character word against a long name took minutes.
  if (word.length > SUGGESTED_MAX) return null;
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    // Each character of length between them is one edit at least.
    if (candidate === word || Math.abs(candidate.length - word.length) > limit) continue;
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The unknown-field message, naming what a typo most likely meant (`scedules`: `schedules`). One
 * wording for every path that meets an unknown key: validation of a whole document and a merge patch.
 */
export function unknownFieldMessage(key: string, known: ReadonlySet<string> | 'any'): string {
  const near = known === 'any' ? null : closestName(key, known);
  return `unknown field \`${cutForQuote(key)}\`${near === null ? '' : `; did you mean \`${near}\`?`}`;
}

/**
 * The first of `given` that `what` (a route, a question) does not read, or null when it reads them all.
 * A near miss names the parameter meant (`asignee`: `assignee`), so a typo never silently widens a read.
 *
 * @example unreadParam(['asignee'], 'GET /work', ['assignee']) // detail: '… asignee; did you mean assignee?'
 */
export function unreadParam(
  given: Iterable<string>,
  what: string,
  known: readonly string[],
): { readonly detail: string; readonly hint: string } | null {
  for (const name of given) {
    if (known.includes(name)) continue;
    const near = closestName(name, known);
    return {
      detail: `${what} does not read the parameter ${name === '' ? '(an empty name)' : cutForQuote(name)}${near === null ? '' : `; did you mean ${near}?`}`,
      hint: known.length === 0 ? `${what} reads no query parameter.` : `${what} reads ${known.join(', ')}.`,
    };
  }
  return null;
}
