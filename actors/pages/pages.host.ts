/**
 * The knowledge base's writer: answers `svc.cmd.pages.write` on every node (any may answer; the log
 * decides). An op_id already decided is answered with its first outcome and writes nothing; otherwise
 * the change is appended to SVC_PAGES under the op_id as its de-duplication id, and the answer is what
 * the projection decided for it once folded (ops/knowledge-base.md "Writes").
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { serveCommand, Subjects, type Bus, type Subscription } from '../../bus/index.js';
import {
  Commands,
  opIdReusedDetail,
  pageGesture,
  type PageOutcome,
  type PageWrite,
  type PageWriteReply,
} from '../../schema/index.js';
import { recordFor, recordKind } from './pages.decide.js';

/** What the writer reads of the projection: decided outcomes, and waiting for its own record. */
export interface PagesLedger {
  outcome(opId: string): PageOutcome | null;
  /** Resolves with the op_id's outcome once folded (null after `timeoutMs`). */
  decided(opId: string, timeoutMs: number): Promise<PageOutcome | null>;
}

export interface PagesHostOptions {
  readonly bus: Bus;
  readonly ledger: PagesLedger;
  /** Container keys the org chart declares now. */
  readonly containers: () => readonly string[];
  readonly logger: Logger;
  readonly now?: () => Date;
  /** How long the writer waits for its record to fold before answering an error. Default 10 s. */
  readonly foldTimeoutMs?: number;
}

const encoder = new TextEncoder();

/**
 * The answer to a write whose op_id was decided already: its first outcome when it is the same gesture
 * (a retry), else `op_id_reused` (another write must not be answered with that one's outcome).
 */
function answerDecided(write: PageWrite, first: PageOutcome, repeated: boolean): PageWriteReply {
  const gesture = pageGesture(write.change);
  if (first.gesture === undefined || first.gesture === gesture) return { outcome: first, repeated };
  const detail = opIdReusedDetail(write.op_id, first.gesture);
  return { outcome: { ok: false, gesture, error: 'op_id_reused', detail, seq: 0 }, repeated: false };
}

export function startPagesHost(opts: PagesHostOptions): Subscription {
  const now = opts.now ?? (() => new Date());
  const foldTimeoutMs = opts.foldTimeoutMs ?? 10_000;
  return serveCommand(opts.bus, Commands.pages.write, async (write): Promise<PageWriteReply> => {
    const known = opts.ledger.outcome(write.op_id);
    if (known) return answerDecided(write, known, true);
    const made = recordFor(write, { id: randomUUID(), at: now().toISOString() }, opts.containers());
    if ('refuse' in made)
      return { outcome: { ok: false, error: made.refuse, detail: made.detail, seq: 0 }, repeated: false };
    const ack = await opts.bus.publish(
      Subjects.pages(recordKind(made.record)),
      encoder.encode(JSON.stringify(made.record)),
      { msgId: `pages:${write.op_id}` },
    );
    const outcome = await opts.ledger.decided(write.op_id, foldTimeoutMs);
    if (!outcome) throw new Error(`pages.write ${write.op_id}: stored at ${ack.seq}, not folded in time`);
    opts.logger.debug(
      { op_id: write.op_id, seq: ack.seq, ok: outcome.ok, by: write.by.id },
      'knowledge base change decided',
    );
    return answerDecided(write, outcome, ack.duplicate || outcome.seq !== ack.seq);
  });
}
