/**
 * Hedged retries for the API calls that recover a read after a server dies. A request sent while a group
 * elects its leader is never answered (the server that would have answered is gone and nobody queues
 * it), and for seconds after the election the metadata leader still places some new single-replica
 * consumers (one in five, measured on nats-server 2.9) on the dead server, unanswered too. Waiting out
 * each attempt's timeout before the next stacked those losses into seconds after the new leader; starting
 * a fresh attempt every `spacingMs` while the earlier ones are still out resumes within one spacing of it.
 */

export interface HedgeOptions<T> {
  /** Pause between the starts of two attempts while none has succeeded. */
  readonly spacingMs: number;
  /** Attempts out at once; each ends by its own timeout, so this bounds the requests a recovery sends. */
  readonly maxPending: number;
  /** Ends the hedge: it resolves null, and whatever succeeds later is discarded. */
  readonly signal: AbortSignal;
  /** Receives what an attempt produced after another had already won (or after the abort). */
  discard(late: T): void;
  /** Told of each failed attempt (numbered from 1). */
  onFailure?(error: unknown, attempt: number): void;
}

/** Resolves with the first attempt to succeed, or null once `signal` aborts. */
export function hedged<T>(attempt: (n: number) => Promise<T>, opts: HedgeOptions<T>): Promise<T | null> {
  const { spacingMs, maxPending, signal } = opts;
  return new Promise((resolve) => {
    let settled = false;
    let pending = 0;
    let started = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (value: T | null): void => {
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      resolve(value);
    };
    const aborted = (): void => {
      if (!settled) finish(null);
    };
    const schedule = (): void => {
      if (!settled && timer === undefined) timer = setTimeout(launch, spacingMs);
    };
    const launch = (): void => {
      timer = undefined;
      if (settled) return;
      if (pending < maxPending) {
        started += 1;
        pending += 1;
        const n = started;
        attempt(n).then(
          (value) => {
            pending -= 1;
            if (settled) opts.discard(value);
            else finish(value);
          },
          (error: unknown) => {
            pending -= 1;
            if (settled) return;
            opts.onFailure?.(error, n);
            schedule();
          },
        );
      }
      schedule();
    };
    if (signal.aborted) {
      finish(null);
      return;
    }
    signal.addEventListener('abort', aborted, { once: true });
    launch();
  });
}
