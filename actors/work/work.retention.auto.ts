/**
 * Automatic trims (ops/work-tracker.md "Retention"): with `auto_trim` set on the capacity, every node running
 * the tracker looks each minute whether the log is over its capacity and, when it is and no maintenance window
 * is open, trims as an operator's `POST /work/retention/trim` would. The op_id names the generation and the
 * log's first record, so nodes that look at once ask for one trim (the others' are repeats of it), and a
 * trim cut short is finished by the next look. A refusal (holders hold the log back) is logged when it
 * changes, not every minute.
 */
import type { Logger } from 'pino';
import { Streams, type Bus } from '../../bus/index.js';
import { overCapacity, type RetentionCommand, type RetentionReply } from '../../schema/index.js';
import { startPeriodic } from '../periodic.js';
import type { WorkStateView } from './work.types.js';

/** How often a node looks whether the log is over a capacity it trims on its own. */
export const AUTO_TRIM_EVERY_MS = 60_000;
/** The actor an automatic trim is recorded under. */
export const AUTO_TRIM_ACTOR = 'svc:auto-trim';
/**
 * The share of each limit an automatic trim leaves free: the log is trimmed to 80% of its capacity, so the
 * next trim (and the snapshot of the whole state it writes) waits until a fifth of the capacity has been
 * written again, not until the next record.
 */
export const AUTO_TRIM_HEADROOM = 0.2;

export interface AutoTrimOptions {
  readonly bus: Bus;
  readonly view: WorkStateView;
  readonly gesture: (cmd: RetentionCommand) => Promise<RetentionReply>;
  readonly logger: Logger;
  readonly everyMs?: number;
  readonly now?: () => Date;
}

export interface AutoTrim {
  /** One look now (what the timer runs); resolves when it is done. */
  look(): Promise<void>;
  /** No more looks; resolves once a look under way is done. */
  stop(): Promise<void>;
}

export function startAutoTrim(opts: AutoTrimOptions): AutoTrim {
  const now = opts.now ?? (() => new Date());
  let lastRefusal: string | null = null;

  const once = async (): Promise<void> => {
    const r = opts.view.state().retention;
    if (!r.capacity.auto_trim || r.window !== null) return;
    const over = overCapacity(r, now());
    if (over.length === 0) return;
    const first = (await opts.bus.streamInfo(Streams.Work)).firstSeq;
    const reply = await opts.gesture({
      op_id: `auto-trim:${r.generation}:${first}`,
      actor: AUTO_TRIM_ACTOR,
      gesture: { kind: 'trim', headroom: AUTO_TRIM_HEADROOM },
    });
    if (reply.outcome === 'ok') {
      lastRefusal = null;
      if (!reply.repeated)
        opts.logger.info({ event: 'work_auto_trim', over, position: reply.position }, 'work log trimmed to its capacity'); // prettier-ignore
      return;
    }
    if (reply.error === lastRefusal) return;
    lastRefusal = reply.error;
    opts.logger.warn(
      { event: 'work_auto_trim_refused', over, error: reply.error, detail: reply.detail },
      'the work log is over its capacity and could not be trimmed',
    );
  };

  const job = startPeriodic(
    () =>
      once().catch((err: unknown) =>
        opts.logger.warn({ err, event: 'work_auto_trim_failed' }, 'automatic trim failed'),
      ),
    { everyMs: opts.everyMs ?? AUTO_TRIM_EVERY_MS },
  );
  return { look: job.run, stop: job.stop };
}
