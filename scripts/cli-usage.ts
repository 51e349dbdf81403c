/**
 * What every `svc` command shares about talking to its user: where its text goes, and the bad invocation
 * the CLI prints with a pointer to the command's help (exit 2).
 */

/** Where a command writes its answers or its notes: stdout, stderr, or a test's buffer. */
export type Out = { write(text: string): unknown };

/** A bad invocation of any `svc` command: the CLI prints it with a pointer to the command's help and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * An argument as a refusal names it: a flag without its `=VALUE`, which may be a credential typed where it
 * does not belong (`svc --token=...`); the CLI takes none on its command line.
 */
export const named = (arg: string): string => (arg.startsWith('-') ? arg.split('=')[0]! : arg);
