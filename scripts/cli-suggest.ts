/**
 * A mistyped command, verb or flag named back with the one it was near (`svc fleet stauts` → status): the
 * usage error already says what was wrong, this says what was probably meant, without a round through --help.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './cli-usage.js';

/**
 * Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`, given up past `cap`: only a near
 * word is of interest.
 */
function distance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]!.push(j);
        continue;
      }
      const row = rows[i]!;
      const above = rows[i - 1]!;
      const same = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + same);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      row.push(best);
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * ` (did you mean X?)` when exactly one of `known` is the nearest within a typo of `word` (one edit for a
 * word of up to five letters, two beyond); else empty: a guess among several, or a far one, misleads.
 */
export function didYouMean(word: string, known: Iterable<string>): string {
  const cap = word.length <= 5 ? 1 : 2;
  let best: string[] = [];
  let bestDistance = cap;
  for (const candidate of known) {
    if (candidate === word) continue;
    const d = distance(word.toLowerCase(), candidate.toLowerCase(), cap);
    // Past the cap is no typo, even when it is the only candidate that far (`foo` is not `rebuild`).
    if (d > cap) continue;
    if (d < bestDistance) [best, bestDistance] = [[candidate], d];
    else if (d === bestDistance) best.push(candidate);
  }
  return best.length === 1 ? ` (did you mean ${best[0]}?)` : '';
}

/** `svc <command>`'s refusal of a verb it lacks, naming the near one. */
export const unknownVerb = (command: string, verb: string, verbs: Iterable<string>): UsageError =>
  new UsageError(`unknown ${command} verb: ${verb}${didYouMean(verb, verbs)}`);

/**
 * node:util's `parseArgs`, with an unknown long flag near one the command takes refused naming it
 * (`--limt` → --limit). Any other refusal is thrown as the parser's, which svc.ts words.
 */
export function parseFlags<const T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const code = error instanceof TypeError && 'code' in error ? error.code : undefined;
    const flag = /^Unknown option '--([^'=\s]+)'/.exec(error instanceof Error ? error.message : '')?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) {
      const near = didYouMean(flag, Object.keys(config.options ?? {}));
      if (near !== '') throw new UsageError(`unknown flag --${flag}${near.replace('mean ', 'mean --')}`);
    }
    throw error;
  }
}
