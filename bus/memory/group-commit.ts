/**
 * The memory engine's group commit: writes queued in one tick run in one SQLite transaction; each caller
 * learns its outcome once the whole batch is durable. A refused write (CAS, expected sequence, no such
 * stream) is refused by its checks before it writes anything, so it fails alone and the batch commits the
 * rest. A write that fails after it began writing (a storage error) fails the whole batch: nothing of it
 * is kept, every caller is told, and the cached state is rebuilt from the database. Telling the two apart
 * by SQLite's change count instead of a savepoint per write: savepoints were a third of an append's cost.
 */
import type { Logger } from 'pino';
import { BusClosedError } from '../errors.js';
import type { Db } from './store.js';

interface Pending {
  readonly work: (now: number) => unknown;
  readonly resolve?: (value: unknown) => void;
  readonly reject?: (error: unknown) => void;
}

export interface GroupCommitHooks {
  /** Inside the transaction, after the batch's writes: what is written once per commit. */
  beforeCommit(): void;
  /** After a batch committed and its callers were told (the engine announces what it wrote). */
  committed(): void;
  /** The commit itself failed (disk full, I/O): nothing of the batch is stored. */
  failed(): void;
}

export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private closed = false;
  /** Rows changed by this connection so far: whether a failed write had begun writing. */
  private readonly changes;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly clock: () => number,
    private readonly hooks: GroupCommitHooks,
  ) {
    this.changes = db.prepare('SELECT total_changes()').pluck();
  }

  /** Runs `work` inside the next group commit; resolves with its result once committed. */
  commit<T>(work: (now: number) => T): Promise<T> {
    if (this.closed) return Promise.reject(new BusClosedError('the bus is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Like `commit` without waiting (acks: a lost one only redelivers). */
  enqueue(work: () => void): void {
    if (this.closed) return;
    this.queue.push({ work });
    this.schedule();
  }

  /** Resolves after the next commit (never rejects: used while stopping). */
  barrier(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.queue.push({ work: () => undefined, resolve: () => resolve(), reject: () => resolve() });
      this.schedule();
    });
  }

  /** Commits what is queued now and takes no more. */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const now = this.clock();
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db
        .transaction(() => {
          for (const item of batch) {
            const before = this.changes.get();
            try {
              results.push({ ok: true, value: item.work(now) });
            } catch (error) {
              // Half written: the transaction rolls back, and the batch fails below.
              if (this.changes.get() !== before) throw error;
              results.push({ ok: false, error });
            }
          }
          this.hooks.beforeCommit();
        })
        .immediate();
    } catch (error) {
      this.logger.error({ err: error }, 'memory bus commit failed');
      this.hooks.failed();
      for (const item of batch) item.reject?.(error);
      return;
    }
    batch.forEach((item, i) => {
      const result = results[i] as (typeof results)[number];
      if (result.ok) item.resolve?.(result.value);
      else item.reject?.(result.error);
    });
    this.hooks.committed();
  }
}
