/**
 * The alarm host of one node: evaluates the rules (alarms.rules.ts) every health pulse and at once when
 * the bus link changes, keeps the `/health` summary, and records each raise and clear as an
 * `alarm_raised` / `alarm_cleared` event. Events wait in order while the bus is unreachable (the alarm
 * that says so included) and are published once it is back; the record id keeps a repeat single.
 */
import type { Logger } from 'pino';
import { publishEvent, type Bus, newEvent } from '../../bus/index.js';
import { type EventRecord, type Payloads } from '../../schema/index.js';
import { changes, evaluate, summary, type Alarm, type AlarmFacts } from './alarms.rules.js';

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
  /** Evaluates now (also runs on its own every pulse and on every link change). */
  evaluate(): void;
  stop(): Promise<void>;
}

export function startAlarms(opts: AlarmsOptions): AlarmsHost {
  const now = opts.now ?? (() => new Date());
  const log = opts.logger.child({ component: 'alarms' });
  let active = new Map<string, Alarm>();
  const raisedAt = new Map<string, string>();
  let evaluated = false;
  const outbox: EventRecord[] = [];
  let flushing: Promise<void> | null = null;

  const flush = (): void => {
    if (flushing || outbox.length === 0 || !opts.bus.linked()) return;
    flushing = (async () => {
      while (outbox.length > 0 && opts.bus.linked()) {
        try {
          await publishEvent(opts.bus, outbox[0] as EventRecord);
          outbox.shift();
        } catch (error) {
          log.warn({ err: error, waiting: outbox.length }, 'alarm event not recorded yet');
          return;
        }
      }
    })().finally(() => (flushing = null));
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
    evaluate: run,
    async stop() {
      clearInterval(timer);
      unlink();
      await flushing;
    },
  };
}
