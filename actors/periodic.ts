/**
 * A job a host runs on a timer and on demand, never two at once: a call while one runs shares it. The
 * timer is unref'd (it keeps no process alive) and `stop` waits for a run under way.
 */
export interface PeriodicJob<T> {
  /** One run now, or the one under way. */
  readonly run: () => Promise<T>;
  /** No more timed runs; resolves once a run under way is done (its failure is the caller's of `run`). */
  readonly stop: () => Promise<void>;
}

export function startPeriodic<T>(
  job: () => Promise<T>,
  opts: {
    /** 0 starts no timer (runs only on demand). */
    readonly everyMs: number;
    /** A timed run that failed (a run asked for by a caller fails to that caller). */
    readonly onError?: (error: unknown) => void;
  },
): PeriodicJob<T> {
  let running: Promise<T> | null = null;
  const run = (): Promise<T> => {
    running ??= job().finally(() => {
      running = null;
    });
    return running;
  };
  const timer =
    opts.everyMs > 0
      ? setInterval(() => void run().catch((error: unknown) => opts.onError?.(error)), opts.everyMs).unref()
      : null;
  return {
    run,
    stop: async () => {
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
