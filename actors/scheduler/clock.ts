/**
 * The scheduler's clock: the current instant and one-shot timers at an instant. Injected so tests
 * drive time by hand (test/harness/manual-clock.ts) and never sleep.
 */
export interface Clock {
  now(): Date;
  /** Calls `fn` once at (or after) `when`; returns a cancel function. */
  at(when: Date, fn: () => unknown): () => void;
}

/** setTimeout caps delays at 2^31-1 ms (~24.8 days): longer waits are taken in steps. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => new Date(),
  at(when, fn) {
    let timer: NodeJS.Timeout | null = null;
    // Always through setTimeout, even when `when` has passed: never re-enter the caller.
    const schedule = (): void => {
      const delay = Math.min(Math.max(0, when.getTime() - Date.now()), MAX_DELAY_MS);
      timer = setTimeout(() => {
        if (when.getTime() > Date.now()) return schedule();
        timer = null;
        fn();
      }, delay);
      // The node is kept alive by its listeners and reconcile tick, not by a schedule.
      timer.unref();
    };
    schedule();
    return () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    };
  },
};
