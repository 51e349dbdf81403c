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

/** Who parses, for an unknown flag's refusal: the command, and the flags each of its verbs takes. */
export interface FlagOwners {
  /** `events`: the refusal says `svc events list takes …`. */
  readonly command: string;
  /** Each verb's own flags (beside `shared`); without it, the command's flags are named. */
  readonly takes?: Readonly<Record<string, readonly string[]>>;
  /** The flags every verb takes (`--url`, `--config`, …). */
  readonly shared?: readonly string[];
}

/**
 * node:util's `parseArgs`, with an unknown long flag near one the command takes refused naming it
 * (`--limt` → --limit), and any other unknown flag refused naming the flags the verb takes. Any other
 * refusal is thrown as the parser's, which svc.ts words.
 */
export function parseFlags<const T extends ParseArgsConfig>(
  config: T,
  owners?: FlagOwners,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const code = error instanceof TypeError && 'code' in error ? error.code : undefined;
    const flag = /^Unknown option '(-{1,2}[^'=\s]+)'/.exec(error instanceof Error ? error.message : '')?.[1];
    if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || flag === undefined) throw error;
    const options = Object.keys(config.options ?? {});
    if (flag.startsWith('--')) {
      const near = didYouMean(flag.slice(2), options);
      if (near !== '') throw new UsageError(`unknown flag ${flag}${near.replace('mean ', 'mean --')}`);
    }
    if (owners === undefined) throw error;
    throw new UsageError(`unknown flag ${flag} (${flagsTaken(config, owners, options)})`);
  }
}

/** `svc events list takes --limit, …`: the verb's flags when a verb the command knows is given. */
function flagsTaken(config: ParseArgsConfig, owners: FlagOwners, options: readonly string[]): string {
  // The verb is the first word that is not a flag (a flag's value may pass for it: then no verb is known).
  const verb = owners.takes
    ? parseArgs({ ...config, strict: false, allowPositionals: true }).positionals[0]
    : undefined;
  const own =
    verb !== undefined && owners.takes && Object.hasOwn(owners.takes, verb) ? owners.takes[verb] : undefined;
  const who = own === undefined ? `svc ${owners.command}` : `svc ${owners.command} ${verb}`;
  // The command's own flags first, then those every verb shares.
  const shared = owners.shared ?? [];
  const flags = [...(own ?? options.filter((o) => !shared.includes(o))), ...shared];
  const dash = config.allowPositionals ? '; an argument that starts with a dash goes after --' : '';
  return `${who} takes ${flags.map((f) => `--${f}`).join(', ')}${dash}`;
}
