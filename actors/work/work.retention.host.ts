/**
 * The work log's retention on one node (ops/work-tracker.md "Retention"): serves the operators' gestures
 * (`svc.cmd.work.retention`) and acknowledges, heartbeat-style, the position this node's projection has
 * applied. Gestures are appended one after another on `svc.work.retention.ops` (the subject's expected
 * last sequence, as item writes), each announced by an event whose id comes from its `op_id`.
 */
import type { Logger } from 'pino';
import {
  newEvent,
  publishEvent,
  serveCommand,
  Streams,
  Subjects,
  WrongLastSequenceError,
  type Bus,
  type Subscription,
} from '../../bus/index.js';
import {
  Commands,
  EventCategory,
  retentionSubjects,
  uuidv5,
  type RetentionCommand,
  type RetentionOutcome,
  type RetentionReply,
  type RetentionRecord,
} from '../../schema/index.js';
import { refusedBeforeDeciding } from './work.admit.js';
import { decideRetention } from './work.retention.decide.js';
import { EFFECTS_DURABLE } from './work.effects.host.js';
import {
  firstOwed,
  heldByEffects,
  planTrim,
  trimLimit,
  trimRecord,
  type TrimCandidate,
} from './work.retention.trim.js';
import type { WorkStateView } from './work.types.js';

const MAX_ATTEMPTS = 50;
const CATCH_UP_MS = 10_000;
const eventNamespace = '5d0f6c2a-8e1b-5c47-b3a9-0e6d2f4a8c13';
const encoder = new TextEncoder();

export interface RetentionHostOptions {
  readonly bus: Bus;
  readonly view: WorkStateView;
  readonly nodeId: string;
  readonly logger: Logger;
  /** Live node ids of the fleet; null while not readable. */
  readonly roster: () => Promise<readonly string[] | null>;
  readonly now?: () => Date;
}

export interface RetentionHost {
  gesture(cmd: RetentionCommand): Promise<RetentionReply>;
  stop(): Promise<void>;
}

export function startRetentionHost(opts: RetentionHostOptions): RetentionHost {
  const { bus, view } = opts;
  const now = opts.now ?? (() => new Date());
  const catchUp = async (seq: number): Promise<void> => {
    if (!(await view.until(seq, CATCH_UP_MS)))
      throw new Error(`work projection did not reach sequence ${seq}`);
  };
  const subject = Subjects.work(retentionSubjects.ops);

  const announce = async (
    cmd: RetentionCommand,
    event: { type: string; summary: string; payload: Record<string, unknown> },
    position: string,
  ) => {
    const record = newEvent({
      type: event.type,
      category: EventCategory.System,
      source: `${opts.nodeId}/work`,
      summary: event.summary,
      actor: cmd.actor,
      payload: { ...event.payload, op_id: cmd.op_id, position },
    });
    await publishEvent(bus, { ...record, id: uuidv5(eventNamespace, `${cmd.op_id}:${event.type}`) });
  };

  /**
   * Removes what the last trim recorded and the snapshots older than its own (idempotent: a trim whose
   * removal was cut short is finished here by a retry, or by the next trim).
   */
  const finishTrim = async (): Promise<void> => {
    const trim = view.state().retention.trim;
    if (!trim) return;
    if ((await bus.streamInfo(Streams.Work)).firstSeq < trim.below)
      await bus.purgeBelow(Streams.Work, trim.below);
    await view.snapshots?.prune(trim.snapshot_seq);
  };

  /** The trim's record and event (its snapshot written), or a refusal. */
  const decideTrim = async (
    cmd: RetentionCommand,
  ): Promise<{ record: RetentionRecord; event: Parameters<typeof announce>[1] } | RetentionReply> => {
    const snapshots = view.snapshots;
    if (!snapshots) throw new Error('the work view given to the retention host writes no snapshots');
    await finishTrim();
    const info = await bus.streamInfo(Streams.Work);
    const state = view.state();
    const limit = trimLimit(state.retention, info.firstSeq, state.seq);
    if (typeof limit !== 'number') return { outcome: 'refused', ...limit.refused };
    // Read before the records: the floor only moves up, so what is owed can only be later than found.
    const ackFloor = await bus.consumerAckFloor(Streams.Work, EFFECTS_DURABLE);
    const candidates: TrimCandidate[] = [];
    for await (const m of bus.replay(Streams.Work, { fromSeq: info.firstSeq, toSeq: limit - 1 }))
      candidates.push({ seq: m.seq, subject: m.subject, bytes: m.data.byteLength, time: m.time.getTime() });
    const at = now();
    const headroom = cmd.gesture.kind === 'trim' ? cmd.gesture.headroom : undefined;
    let plan = planTrim(state.retention, limit, candidates, at, headroom);
    if ('refused' in plan) return { outcome: 'refused', ...plan.refused };
    const held = heldByEffects(plan, info.firstSeq, firstOwed(candidates, ackFloor));
    if (held !== null && typeof held !== 'number') return { outcome: 'refused', ...held.refused };
    if (held !== null) {
      plan = planTrim(
        state.retention,
        held,
        candidates.filter((c) => c.seq < held),
        at,
        headroom,
      );
      if ('refused' in plan) return { outcome: 'refused', ...plan.refused };
      opts.logger.info(
        { event: 'work_trim_held_by_effects', op_id: cmd.op_id, below: held, ack_floor: ackFloor },
        'work trim held below a record whose task events and wakes are not delivered yet',
      );
    }
    // The state now is at least at H >= limit - 1: every record kept follows it.
    const manifest = await snapshots.write(view.state(), cmd.actor, at);
    const kept = plan.firstKept ?? (await bus.getMessage(Streams.Work, plan.below))?.time.getTime() ?? null;
    return trimRecord(
      { op_id: cmd.op_id, at: at.toISOString(), actor: cmd.actor },
      plan,
      { seq: manifest.seq, generation: manifest.generation, sha256: manifest.sha256, size: manifest.size },
      kept === null ? null : new Date(kept).toISOString(),
    );
  };

  const gesture = async (cmd: RetentionCommand): Promise<RetentionReply> => {
    const refused = refusedBeforeDeciding(cmd.op_id, view);
    if (refused) return refused;
    const repeated = async (first: RetentionOutcome): Promise<RetentionReply> => {
      if (first.kind === 'retention.trimmed') await finishTrim();
      return { outcome: 'ok', ...first, repeated: true };
    };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      await catchUp((await bus.streamInfo(Streams.Work)).lastSeq);
      const first = view.state().retention.ops.get(cmd.op_id);
      if (first) return repeated(first);
      const last = (await bus.lastMessage(Streams.Work, subject))?.seq ?? 0;
      await catchUp(last);
      const state = view.state();
      const again = state.retention.ops.get(cmd.op_id);
      if (again) return repeated(again);
      const g = cmd.gesture;
      let decided;
      if (g.kind === 'trim') decided = await decideTrim(cmd);
      else {
        const roster = await opts.roster();
        const evicted = g.kind === 'evict' ? state.retention.holders.get(g.holder) : undefined;
        decided = decideRetention(
          state.retention,
          { ...cmd, gesture: g },
          {
            live: roster === null ? null : new Set(roster),
            now: now(),
            seq: state.seq,
            ...(evicted ? { lackingSinceMs: await lackingSince(evicted.seq, state.retention.head) } : {}),
          },
        );
        if ('refused' in decided) return { outcome: 'refused', ...decided.refused };
      }
      if ('outcome' in decided) return decided;
      let ack: Awaited<ReturnType<Bus['publish']>>;
      try {
        ack = await bus.publish(subject, encoder.encode(JSON.stringify(decided.record)), {
          expectedLastSubjectSeq: last,
          msgId: `work:retention:${cmd.op_id}`,
        });
        await catchUp(ack.seq);
      } catch (error) {
        if (error instanceof WrongLastSequenceError) continue;
        throw error;
      }
      const outcome = view.state().retention.ops.get(cmd.op_id);
      if (!outcome) throw new Error(`retention record of op_id ${cmd.op_id} appended but not folded`);
      // The same op_id sent at once from elsewhere landed first: this one is its retry.
      if (ack.duplicate || outcome.seq !== ack.seq) return repeated(outcome);
      if (outcome.kind === 'retention.trimmed') await finishTrim();
      try {
        await announce(cmd, decided.event, outcome.position);
      } catch (error) {
        opts.logger.error({ err: error, op_id: cmd.op_id }, 'work retention event not delivered');
      }
      opts.logger.info({ event: 'work_retention', kind: outcome.kind, seq: outcome.seq }, 'work_retention');
      return { outcome: 'ok', ...outcome, repeated: false };
    }
    return {
      outcome: 'refused',
      error: 'overloaded',
      detail: 'too many concurrent retention gestures; send it again',
      problems: [],
    };
  };

  /** When the oldest record after `seq` that nodes must apply (not a heartbeat) was stored; null: none. */
  const lackingSince = async (seq: number, head: number): Promise<number | null> => {
    const heartbeats = `${retentionSubjects.prefix}ack.`;
    for (let at = seq + 1; at <= head; at++) {
      const message = await bus.getMessage(Streams.Work, at);
      if (message !== null && !message.subject.startsWith(heartbeats)) return message.time.getTime();
    }
    return null;
  };

  const subscription: Subscription = serveCommand(bus, Commands.work.retention, gesture);
  return { gesture, stop: () => subscription.stop() };
}

/** How often a node looks whether it has something new to acknowledge. */
export const ACK_INTERVAL_MS = 5_000;

export interface RetentionAcks {
  /** Acknowledges the applied position when the head moved past the last acknowledgement; true if sent. */
  acknowledge(): Promise<boolean>;
  stop(): void;
}

/**
 * This node's heartbeat: on start and then every `intervalMs`, when the log holds something this node
 * has not acknowledged (a record other than a heartbeat, or a new generation), it records the sequence
 * its projection has applied. Heartbeats do not move the head, so nodes never answer each other's.
 */
export function startRetentionAcks(opts: {
  readonly bus: Bus;
  readonly view: WorkStateView;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly intervalMs?: number;
  readonly now?: () => Date;
}): RetentionAcks {
  const now = opts.now ?? (() => new Date());
  const subject = Subjects.work(retentionSubjects.ack(opts.nodeId));
  let sent: { generation: number; seq: number } | null = null;
  let busy = false;
  const acknowledge = async (): Promise<boolean> => {
    // A node whose state lacks what a trim removed has applied nothing it may vouch for.
    if (opts.view.unavailable?.()) return false;
    const state = opts.view.state();
    const r = state.retention;
    const mine = r.holders.get(opts.nodeId);
    const known = sent && sent.generation === r.generation && sent.seq >= r.head ? sent : null;
    if (known || (mine && mine.generation === r.generation && mine.seq >= r.head)) return false;
    const record: RetentionRecord = {
      kind: 'retention.node_acked',
      op_id: `ack:${opts.nodeId}:${r.generation}:${state.seq}`,
      at: now().toISOString(),
      actor: opts.nodeId,
      node: opts.nodeId,
      generation: r.generation,
      seq: state.seq,
    };
    await opts.bus.publish(subject, encoder.encode(JSON.stringify(record)), { msgId: record.op_id });
    sent = { generation: r.generation, seq: state.seq };
    return true;
  };
  const tick = (): void => {
    if (busy) return;
    busy = true;
    acknowledge()
      .catch((err: unknown) => opts.logger.warn({ err }, 'work retention acknowledgement not recorded'))
      .finally(() => {
        busy = false;
      });
  };
  tick();
  const timer = setInterval(tick, opts.intervalMs ?? ACK_INTERVAL_MS);
  timer.unref();
  return { acknowledge, stop: () => clearInterval(timer) };
}
