/** Runs `work` now and hands back a promise: a throw becomes a rejection, as promise callers expect. */
export function settle<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(work()));
}
