/**
 * Who waits on a running projection: callers waiting for a sequence or a predicate, and listeners of live
 * changes. The runner calls `changed()` after every fold; listeners hear only live changes.
 */
import type { Logger } from 'pino';
import type { RunningProjection } from './projection.js';
import { Waiters } from './waiters.js';

export class Observers<S> {
  private readonly predicates: Waiters<S>;
  private readonly bySeq = new Set<{ seq: number; wake: () => void }>();
  private readonly listeners = new Set<(state: S) => void>();

  constructor(
    private readonly state: () => S,
    private readonly seq: () => number,
    private readonly name: string,
    private readonly logger: Logger | undefined,
  ) {
    this.predicates = new Waiters(state);
  }

  /** After a change: wakes the waiters it satisfies and, when `live`, tells the listeners. */
  changed(live: boolean): void {
    if (this.bySeq.size > 0) {
      const seq = this.seq();
      for (const w of this.bySeq) if (seq >= w.seq) w.wake();
    }
    this.predicates.wake();
    if (!live) return;
    for (const listener of this.listeners) {
      try {
        listener(this.state());
      } catch (error) {
        this.logger?.error({ err: error, projection: this.name }, 'projection listener failed');
      }
    }
  }

  untilSeq(target: number, timeoutMs: number): Promise<boolean> {
    if (this.seq() >= target) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const waiter = {
        seq: target,
        wake: () => {
          clearTimeout(timer);
          this.bySeq.delete(waiter);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.bySeq.delete(waiter);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      this.bySeq.add(waiter);
    });
  }

  when(predicate: (state: S) => boolean, timeoutMs: number): Promise<boolean> {
    return this.predicates.until(predicate, timeoutMs);
  }

  listen(listener: (state: S) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What a running projection offers its readers to wait and listen with (stream and bucket alike). */
  surface(live: () => boolean): Pick<RunningProjection<S>, 'until' | 'when' | 'onChange' | 'notify'> {
    return {
      until: (target, timeoutMs) => this.untilSeq(target, timeoutMs),
      when: (predicate, timeoutMs) => this.when(predicate, timeoutMs),
      onChange: (listener) => this.listen(listener),
      notify: () => this.changed(live()),
    };
  }

  clear(): void {
    this.bySeq.clear();
    this.predicates.clear();
    this.listeners.clear();
  }
}
