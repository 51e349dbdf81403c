/** A bad invocation of any `svc` command: the CLI prints it with a pointer to the command's help and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
