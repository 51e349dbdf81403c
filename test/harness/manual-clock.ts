/**
 * A clock driven by the test: `now()` stands still until `advanceTo`, which runs every timer due by
 * then in time order (setting `now` to each timer's instant) and awaits what each returns — so a
 * scheduler's work triggered by a timer has finished when `advanceTo` resolves. Tests never sleep.
 */
import type { Clock } from '../../actors/index.js';

interface Timer {
  readonly id: number;
  readonly when: number;
  readonly fn: () => unknown;
}

export class ManualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private nextId = 0;

  constructor(start: Date | string) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  at(when: Date, fn: () => unknown): () => void {
    const timer: Timer = { id: this.nextId++, when: when.getTime(), fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Instants of the timers still pending, earliest first. */
  pending(): string[] {
    return [...this.timers].sort((a, b) => a.when - b.when).map((t) => new Date(t.when).toISOString());
  }

  async advanceTo(target: Date | string): Promise<void> {
    const end = new Date(target).getTime();
    for (;;) {
      const due = this.timers.filter((t) => t.when <= end).sort((a, b) => a.when - b.when || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.when);
      await due.fn();
    }
    this.current = Math.max(this.current, end);
  }

  advance(ms: number): Promise<void> {
    return this.advanceTo(new Date(this.current + ms));
  }
}
