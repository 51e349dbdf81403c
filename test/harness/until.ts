/**
 * Polling for tests whose subject converges on its own timers (a fleet's renewals, a projection's catch-up,
 * a routed delivery): asks `read` until `test` holds, and fails naming the last value it saw.
 */
export interface UntilOptions {
  /** Default 30 000. */
  readonly timeoutMs?: number;
  /** Pause between asks. Default 100. */
  readonly everyMs?: number;
}

export async function until<T>(
  read: () => Promise<T>,
  test: (value: T) => boolean,
  opts: UntilOptions | number = {},
): Promise<T> {
  const { timeoutMs = 30_000, everyMs = 100 } = typeof opts === 'number' ? { timeoutMs: opts } : opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (test(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`never matched in ${timeoutMs} ms: ${JSON.stringify(value)?.slice(0, 600)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
