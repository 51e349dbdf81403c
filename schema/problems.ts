/** A validation problem as the spec shapes it in `problems[]`: where, and what is wrong. */
export interface Problem {
  /** Dotted path with `[i]` list indexes, e.g. `api.auth.tokens[0].token`; empty for the whole document. */
  readonly path: string;
  readonly message: string;
  /** 1-based line in the YAML text it came from (the nearest written ancestor for a missing key). */
  readonly line?: number;
  /** 1-based column of that line. */
  readonly column?: number;
}

/** Renders a zod issue path the way problems name fields. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'number') out += `[${step}]`;
    else out += out === '' ? String(step) : `.${String(step)}`;
  }
  return out;
}

/** One line per problem, for a terminal, led by `line:column` as linters print it: `  3:7  api.port: …`. */
export function formatProblems(problems: readonly Problem[]): string {
  const where = (p: Problem): string =>
    p.line === undefined ? '' : `${p.line}${p.column === undefined ? '' : `:${p.column}`}  `;
  return problems.map((p) => `  ${where(p)}${p.path || '(document)'}: ${p.message}`).join('\n');
}

/**
 * The first few issues of a refused file in one line ("field: message; ..."): enough to see what is wrong,
 * not a schema dump.
 */
export function issuesLine(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): string {
  const shown = 3;
  const first = issues
    .slice(0, shown)
    .map((i) => `${formatIssuePath(i.path) || '(document)'}: ${i.message}`)
    .join('; ');
  return issues.length > shown ? `${first} (and ${issues.length - shown} more)` : first;
}
