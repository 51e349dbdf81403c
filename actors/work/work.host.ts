/**
 * The work writer (ops/work-tracker.md "Writes"): serves `svc.cmd.work.write` on every node. A change is
 * decided against the work projection caught up to its project's last record, then appended to the
 * project's subject with that record's sequence as the expected last one, so of two nodes deciding at
 * once only one append lands; the other catches up and decides again (a create then takes the next key).
 * An `op_id` already folded answers its first outcome. The task events and seat wakes a record sets off are
 * not delivered here but by the effects consumer reading the log (work.effects.host.ts), so a node dying
 * right after the append loses none of them.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  serveCommand,
  Streams,
  Subjects,
  WrongLastSequenceError,
  type Bus,
  type Subscription,
} from '../../bus/index.js';
import {
  Commands,
  defaultFields,
  formatPosition,
  itemByRef,
  noWorkItem,
  PROJECT_KEY,
  type RetentionCommand,
  type RetentionReply,
  type WorkOutcome,
  type WorkState,
  type WorkWrite,
  type WorkWriteReply,
} from '../../schema/index.js';
import type { RateWindow } from '../rate-window.js';
import { opIdReused, refusedBeforeDeciding, sameGesture } from './work.admit.js';
import { decideWork } from './work.decide.js';
import { startWorkEffects } from './work.effects.host.js';
import { startAutoTrim } from './work.retention.auto.js';
import { startRetentionHost } from './work.retention.host.js';
import type { WorkContext, WorkStateView } from './work.types.js';

export interface WorkHostOptions {
  readonly bus: Bus;
  readonly view: WorkStateView;
  /** Projects and seats of the active document, read at each write. */
  readonly context: () => WorkContext;
  readonly nodeId: string;
  readonly logger: Logger;
  /** Tests pin the clock. */
  readonly now?: () => Date;
  /** Live node ids of the fleet, for the retention gestures; null (every node live) when absent. */
  readonly roster?: () => Promise<readonly string[] | null>;
  /**
   * False: this host leaves the task events and wakes to another host of this process on the same bus
   * (the memory engine runs one consumer of a durable per process; a fleet's nodes share one). Default true.
   */
  readonly deliverEffects?: boolean;
  /** How often this node looks whether the log needs an automatic trim (tests shorten it). */
  readonly autoTrimEveryMs?: number;
  /** How long a write waits for this node's view to fold a record (default 10 s; tests shorten it). */
  readonly catchUpMs?: number;
  /** The node's window of wakes on notice, shared with the webhook router. */
  readonly wakes?: RateWindow;
}

export interface WorkHost {
  /** Decides and appends one write (what the command handler runs; the wiring's in-process path too). */
  write(write: WorkWrite): Promise<WorkWriteReply>;
  /** Decides and appends one retention gesture (`svc.cmd.work.retention`). */
  gesture(cmd: RetentionCommand): Promise<RetentionReply>;
  stop(): Promise<void>;
}

/** Appends lost to a concurrent writer are retried this many times before the write is refused busy. */
const MAX_ATTEMPTS = 50;
const CATCH_UP_MS = 10_000;
const encoder = new TextEncoder();

const ok = (outcome: WorkOutcome, repeated: boolean): WorkWriteReply => ({
  outcome: 'ok',
  ...outcome,
  repeated,
});

/** The first outcome of the op_id when `write` repeats it, else its refusal (another gesture used it). */
const repeat = (write: WorkWrite, first: WorkOutcome): WorkWriteReply =>
  sameGesture(write.change, first) ? ok(first, true) : opIdReused(write.op_id, first);

/** Opens the effects consumer before serving writes, so none appended from now on goes unnoticed. */
export async function startWorkHost(opts: WorkHostOptions): Promise<WorkHost> {
  const { bus, view, logger } = opts;
  const now = opts.now ?? (() => new Date());

  const catchUpMs = opts.catchUpMs ?? CATCH_UP_MS;
  const catchUp = async (seq: number): Promise<void> => {
    if (!(await view.until(seq, catchUpMs))) throw new Error(`work projection did not reach sequence ${seq}`);
  };

  /**
   * The subject the change goes to: its project's (named by a create or a file, else the item's), or for
   * a person's own state their own subject, so only changes to the same project or person contend.
   */
  const subjectOf = (write: WorkWrite, state: WorkState): string | WorkWriteReply => {
    const change = write.change;
    if (change.kind === 'person') {
      if (opts.context().seats.get(change.handle) !== 'human')
        return {
          outcome: 'refused',
          error: 'validation_error',
          detail: `no human seat "${change.handle}": only people keep inbox state and views`,
          problems: [{ path: 'handle', message: 'a human seat of the active document' }],
        };
      return Subjects.work(`u.${change.handle}`);
    }
    let project: string;
    if (change.kind === 'create' || change.kind === 'file_put' || change.kind === 'file_delete')
      project = change.project;
    else {
      const item = itemByRef(state, change.item);
      // Worded as a read's 404 is (the reference cut at 80 characters).
      if (!item)
        return { outcome: 'refused', error: 'not_found', detail: noWorkItem(change.item), problems: [] };
      project = item.project;
    }
    if (!PROJECT_KEY.test(project))
      return { outcome: 'refused', error: 'no_project', detail: `no project "${project}"`, problems: [] };
    return Subjects.work(`p.${project}`);
  };

  const write = async (request: WorkWrite): Promise<WorkWriteReply> => {
    const refused = refusedBeforeDeciding(request.op_id, view);
    if (refused) return refused;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      await catchUp((await bus.streamInfo(Streams.Work)).lastSeq);
      let state = view.state();
      const first = state.ops.get(request.op_id);
      if (first) return repeat(request, first);
      const subject = subjectOf(request, state);
      if (typeof subject !== 'string') return subject;
      const last = (await bus.lastMessage(Streams.Work, subject))?.seq ?? 0;
      await catchUp(last);
      state = view.state();
      const again = state.ops.get(request.op_id);
      if (again) return repeat(request, again);
      const decided = decideWork(
        state,
        opts.context(),
        request,
        { id: randomUUID(), commentId: randomUUID(), now: now() },
        defaultFields(),
      );
      if ('refused' in decided) return { outcome: 'refused', ...decided.refused };
      let ack: Awaited<ReturnType<Bus['publish']>>;
      try {
        ack = await bus.publish(subject, encoder.encode(JSON.stringify(decided.record)), {
          expectedLastSubjectSeq: last,
          msgId: `work:${request.op_id}`,
        });
      } catch (error) {
        if (error instanceof WrongLastSequenceError) continue;
        throw error;
      }
      if (!(await view.until(ack.seq, catchUpMs))) {
        const record = decided.record;
        // Only a fresh item record says what it made; a duplicate's outcome is the earlier record's.
        const key = record.kind === 'item.created' ? record.key : state.items.get(record.id)?.key;
        if (ack.duplicate || !record.kind.startsWith('item.') || key === undefined)
          throw new Error(`work projection did not reach sequence ${ack.seq}`);
        // Appended, only not readable here yet (a draining node, a stalled read): the outcome is known, and
        // answering it keeps a caller from retrying into a second item under a fresh op_id.
        logger.warn(
          { event: 'work_written_unseen', kind: record.kind, item: key, seq: ack.seq, actor: request.actor },
          'work_written_unseen',
        );
        return {
          outcome: 'ok',
          op_id: request.op_id,
          kind: record.kind,
          id: record.id,
          key,
          seq: ack.seq,
          position: formatPosition(ack.seq, state.retention.generation),
          repeated: false,
        };
      }
      const outcome = view.state().ops.get(request.op_id);
      if (!outcome) throw new Error(`work record of op_id ${request.op_id} appended but not folded`);
      // Another gesture with this op_id landed first (the append was its duplicate).
      if (!sameGesture(request.change, outcome)) return opIdReused(request.op_id, outcome);
      // The same gesture sent at once from elsewhere landed first: this one is its retry.
      if (ack.duplicate || outcome.seq !== ack.seq) return ok(outcome, true);
      logger.info(
        {
          event: 'work_written',
          kind: outcome.kind,
          item: outcome.key,
          seq: outcome.seq,
          actor: request.actor,
        },
        'work_written',
      );
      return ok(outcome, false);
    }
    return {
      outcome: 'refused',
      error: 'overloaded',
      detail: 'too many concurrent writes to this project; send it again',
      problems: [],
    };
  };

  const effects: Subscription =
    opts.deliverEffects === false
      ? { stop: () => Promise.resolve() }
      : await startWorkEffects({
          bus,
          view,
          context: opts.context,
          nodeId: opts.nodeId,
          logger,
          ...(opts.now ? { now: opts.now } : {}),
          ...(opts.wakes ? { wakes: opts.wakes } : {}),
        });
  const subscription: Subscription = serveCommand(bus, Commands.work.write, write);
  const retention = startRetentionHost({
    bus,
    view,
    nodeId: opts.nodeId,
    logger,
    roster: opts.roster ?? (() => Promise.resolve(null)),
    ...(opts.now ? { now: opts.now } : {}),
  });
  const autoTrim = startAutoTrim({
    bus,
    view,
    gesture: (cmd) => retention.gesture(cmd),
    logger,
    ...(opts.autoTrimEveryMs !== undefined ? { everyMs: opts.autoTrimEveryMs } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
  return {
    write,
    gesture: (cmd) => retention.gesture(cmd),
    stop: async () => {
      await autoTrim.stop();
      await retention.stop();
      await subscription.stop();
      await effects.stop();
    },
  };
}
