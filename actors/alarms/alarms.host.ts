/**
 * The alarm host of one node: evaluates the rules (alarms.rules.ts) every health pulse and at once when
 * the bus link changes, keeps the `/health` summary, and records each raise and clear as an
 * `alarm_raised` / `alarm_cleared` event. Events wait in order while the bus is unreachable (the alarm
 * that says so included) and are published once it is back; the record id keeps a repeat single. What is
 * raised is kept per node in a bucket once published, so a restarted node takes up its standing alarms:
 * one that still holds is not raised (nor paged) again, one that ended meanwhile is cleared.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { Buckets, publishEvent, type Bus, type Kv, newEvent } from '../../bus/index.js';
import { Payloads, type EventRecord, type NodeAlarms } from '../../schema/index.js';
import { announced, changes, evaluate, summary, type Alarm, type AlarmFacts } from './alarms.rules.js';

/** The spec's health pulse: alarms are looked at as often as health is pushed. */
const evaluateEveryMs = 5_000;

export interface AlarmsOptions {
  readonly bus: Bus;
  readonly nodeId: string;
  readonly logger: Logger;
  /** Gathers the facts; called on every evaluation. */
  readonly facts: () => AlarmFacts;
  readonly everyMs?: number;
  readonly now?: () => Date;
}

export interface AlarmsHost {
  /** `/health` `alarms`; null before the first evaluation. */
  summary(): { count: number; worst?: Payloads.AlarmSeverity } | null;
  /** The alarms raised now. */
  active(): Alarm[];
  /** What the node's presence record says of them (count, worst, names); null before the first evaluation. */
  announced(): NodeAlarms | null;
  /** Evaluates now (also runs on its own every pulse and on every link change). */
  evaluate(): void;
  /**
   * The node's facts are whole (read models seeded): a standing alarm taken up at start that no longer
   * holds is cleared from now on. Until then it is kept, so a fact not yet gathered clears nothing.
   */
  settle(): void;
  stop(): Promise<void>;
}

/** A node's standing alarms as kept in the bucket: the payloads that raised them. */
const Standing = z.object({ alarms: z.array(Payloads.AlarmRaised) });

/** The node's standing alarms as its last run left them; none when unreadable (they are then raised anew). */
async function readStanding(kv: Kv, nodeId: string, log: Logger): Promise<Payloads.AlarmRaised[]> {
  try {
    const entry = await kv.get(nodeId);
    if (entry === null) return [];
    const parsed = Standing.safeParse(JSON.parse(new TextDecoder().decode(entry.value)));
    if (parsed.success) return parsed.data.alarms;
    log.warn({ issues: parsed.error.issues.length }, 'standing alarms unreadable; evaluating afresh');
  } catch (error) {
    log.warn({ err: error }, 'standing alarms unreadable; evaluating afresh');
  }
  return [];
}

export async function startAlarms(opts: AlarmsOptions): Promise<AlarmsHost> {
  const now = opts.now ?? (() => new Date());
  const log = opts.logger.child({ component: 'alarms' });
  const kv = await opts.bus.kv({ name: Buckets.Alarms, history: 1 });
  let active = new Map<string, Alarm>();
  const raisedAt = new Map<string, string>();
  /** Standing alarms taken up at start, kept until the node settles. */
  let unsettled = new Set<string>();
  for (const standing of await readStanding(kv, opts.nodeId, log)) {
    const { alarm: id, kind, severity, detail } = standing;
    active.set(id, { id, kind, severity, detail });
    raisedAt.set(id, standing.raised_at);
    unsettled.add(id);
  }
  let evaluated = false;
  const outbox: EventRecord[] = [];
  let flushing: Promise<void> | null = null;
  /** The set last written to the bucket, to write only on a change. */
  let kept = JSON.stringify([...raisedAt.keys()].sort());

  const standingNow = (): Payloads.AlarmRaised[] =>
    [...active.values()].map((a) => ({
      alarm: a.id,
      kind: a.kind,
      severity: a.severity,
      node: opts.nodeId,
      detail: a.detail,
      raised_at: raisedAt.get(a.id) ?? now().toISOString(),
    }));

  // Written once the events are published: a crash in between raises again (at worst), never forgets.
  const keep = async (): Promise<void> => {
    const ids = JSON.stringify([...active.keys()].sort());
    if (ids === kept) return;
    await kv.put(opts.nodeId, new TextEncoder().encode(JSON.stringify({ alarms: standingNow() })));
    kept = ids;
  };

  /** Publishes the waiting events in order, then keeps the standing set. */
  const drain = async (): Promise<void> => {
    while (outbox.length > 0) {
      if (!opts.bus.linked()) return;
      try {
        await publishEvent(opts.bus, outbox[0] as EventRecord);
        outbox.shift();
      } catch (error) {
        log.warn({ err: error, waiting: outbox.length }, 'alarm event not recorded yet');
        return;
      }
    }
    await keep().catch((error: unknown) => log.warn({ err: error }, 'standing alarms not kept yet'));
  };

  /** A flush asked while one runs runs again after it, so a raise never waits for the next pulse. */
  let again = false;
  const flush = (): void => {
    if (flushing) {
      again = true;
      return;
    }
    if (!opts.bus.linked()) return;
    flushing = drain().finally(() => {
      flushing = null;
      if (again) {
        again = false;
        flush();
      }
    });
  };

  const record = (type: 'alarm_raised' | 'alarm_cleared', alarm: Alarm, at: string): void => {
    const raised = raisedAt.get(alarm.id) ?? at;
    const payload =
      type === 'alarm_raised'
        ? {
            alarm: alarm.id,
            kind: alarm.kind,
            severity: alarm.severity,
            node: opts.nodeId,
            detail: alarm.detail,
            raised_at: at,
          }
        : {
            alarm: alarm.id,
            kind: alarm.kind,
            severity: alarm.severity,
            node: opts.nodeId,
            raised_at: raised,
            cleared_at: at,
          };
    outbox.push(
      newEvent({
        type,
        category: 'system',
        source: `${opts.nodeId}/alarms`,
        summary:
          type === 'alarm_raised'
            ? `${alarm.severity}: ${alarm.detail}`
            : `cleared: ${alarm.id} on ${opts.nodeId}`,
        actor: opts.nodeId,
        failed: false,
        payload,
        now: new Date(at),
      }),
    );
  };

  const run = (): void => {
    let next: Map<string, Alarm>;
    try {
      next = evaluate(opts.facts());
    } catch (error) {
      log.error({ err: error }, 'alarm facts could not be gathered');
      return;
    }
    for (const id of unsettled) {
      const standing = active.get(id);
      if (standing !== undefined && !next.has(id)) next.set(id, standing);
    }
    const at = now().toISOString();
    const { raised, cleared } = changes(active, next);
    for (const alarm of raised) {
      raisedAt.set(alarm.id, at);
      record('alarm_raised', alarm, at);
      log[alarm.severity === 'critical' ? 'error' : 'warn'](
        { alarm: alarm.id, severity: alarm.severity },
        `alarm raised: ${alarm.detail}`,
      );
    }
    for (const alarm of cleared) {
      record('alarm_cleared', alarm, at);
      raisedAt.delete(alarm.id);
      log.info({ alarm: alarm.id }, 'alarm cleared');
    }
    active = next;
    evaluated = true;
    flush();
  };

  const timer = setInterval(run, opts.everyMs ?? evaluateEveryMs);
  timer.unref();
  const unlink = opts.bus.onLinkChange(() => run());
  run();
  return {
    summary: () => (evaluated ? summary(active) : null),
    active: () => [...active.values()],
    announced: () => (evaluated ? announced(active) : null),
    evaluate: run,
    settle() {
      unsettled = new Set();
      run();
    },
    async stop() {
      clearInterval(timer);
      unlink();
      while (flushing) await flushing;
    },
  };
}
