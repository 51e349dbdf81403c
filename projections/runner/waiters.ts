/**
 * Waiting for a projection to reach a state: a writer that has been told "stored" waits until its own read
 * model shows it, bounded by a timeout. The runner keeps one `Waiters` per projection and calls `wake()`
 * after every change it folds.
 */
export class Waiters<S> {
  private readonly pending = new Set<() => void>();

  /** `state` reads the current state (a rebuild replaces it). */
  constructor(private readonly state: () => S) {}

  /** Re-checks every waiting predicate; call after each change to the state. */
  wake(): void {
    for (const check of [...this.pending]) check();
  }

  /** Resolves true once `predicate(state)` holds, false after `timeoutMs` without it. */
  until(predicate: (state: S) => boolean, timeoutMs: number): Promise<boolean> {
    if (predicate(this.state())) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const check = (): void => {
        if (!predicate(this.state())) return;
        clearTimeout(timer);
        this.pending.delete(check);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.pending.delete(check);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      this.pending.add(check);
    });
  }

  /** Forgets every waiter (on stop); their promises settle by their own timeouts. */
  clear(): void {
    this.pending.clear();
  }
}
