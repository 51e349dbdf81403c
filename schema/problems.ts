/** A validation problem as the spec shapes it in `problems[]`: where, and what is wrong. */
export interface Problem {
  /** Dotted path with `[i]` list indexes, e.g. `api.auth.tokens[0].token`; empty for the whole document. */
  readonly path: string;
  readonly message: string;
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

/** One line per problem, for a terminal. */
export function formatProblems(problems: readonly Problem[]): string {
  return problems.map((p) => `  ${p.path || '(document)'}: ${p.message}`).join('\n');
}
