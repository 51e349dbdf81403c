/**
 * A trim never removes a record whose task events and wakes the effects consumer (`work_effects`) still
 * owes (ops/work-tracker.md "Retention"), on both bus engines: while a seat's wake keeps failing, a trim
 * removes only the records before that record and the next one is refused naming the consumer, an
 * automatic trim leaves it too, and once the wake is delivered the next trim (by hand or automatic)
 * removes it.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { startRetentionAcks, startWorkHost, type WorkContext } from '../../actors/index.js';
import { AUTO_TRIM_ACTOR, startAutoTrim } from '../../actors/work/work.retention.auto.js';
import { ensureCatalogue, openBus, Streams, Subjects, type Bus } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { followWork } from '../../projections/index.js';
import { projectsOf, seatKindsOf } from '../../schema/index.js';
import { company, effectsDelivered } from '../http/fixtures/work-harness.js';
import { startNatsServer } from '../harness/nats-server.js';
import { until as poll } from '../harness/until.js';

const until = <T>(read: () => Promise<T>, test: (value: T) => boolean): Promise<T> =>
  poll(read, test, { timeoutMs: 45_000, everyMs: 20 });
const HOUR = 3_600_000;
const silent = pino({ level: 'silent' });
const context: WorkContext = { projects: projectsOf(company), seats: seatKindsOf(company) };

/** The bus as the work host sees it, whose publishes on `subject` fail until healed (an inbox down). */
function failingUntilHealed(bus: Bus, subject: string) {
  let failing = true;
  let attempts = 0;
  const proxy = new Proxy(bus, {
    get(target, prop) {
      if (prop === 'publish')
        return async (...args: Parameters<Bus['publish']>) => {
          if (args[0] === subject) {
            attempts += 1;
            if (failing) throw new Error('inbox unavailable');
          }
          return target.publish(...args);
        };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { bus: proxy, attempts: () => attempts, heal: () => void (failing = false) };
}

async function scenario(t: Test, bus: Bus, after: 'by hand' | 'automatically'): Promise<void> {
  await ensureCatalogue(bus);
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString()), done()) })); // prettier-ignore
  const view = await followWork({ bus, logger: silent });
  t.teardown(() => view.stop());
  const inbox = failingUntilHealed(bus, Subjects.agentInbox('coder'));
  const host = await startWorkHost({ bus: inbox.bus, view, context: () => context, nodeId: 'node-0', logger, autoTrimEveryMs: HOUR }); // prettier-ignore
  t.teardown(() => host.stop());
  const acks = startRetentionAcks({ bus, view, nodeId: 'node-0', logger: silent, intervalMs: HOUR });
  t.teardown(() => acks.stop());
  const look = startAutoTrim({ bus, view, gesture: (cmd) => host.gesture(cmd), logger, everyMs: HOUR });
  t.teardown(() => look.stop());
  const info = () => bus.streamInfo(Streams.Work);
  const acknowledge = async () => {
    await acks.acknowledge();
    t.ok(await view.until((await info()).lastSeq, 10_000));
  };
  const create = async (op_id: string, title: string, assignees: string[] = []) => {
    const reply = await host.write({ op_id, actor: 'ada', turn_id: null, change: { kind: 'create', project: 'ENG', fields: { title, assignees } } }); // prettier-ignore
    if (reply.outcome !== 'ok') throw new Error(`${op_id}: ${reply.error} ${reply.detail}`);
    return reply.seq;
  };

  const one = await create('c-1', 'One');
  const owed = await create('c-2', 'Two', ['coder']);
  await create('c-3', 'Three');
  // The records around it are delivered; coder's wake keeps failing, so its record stays unacknowledged.
  await until(
    () => bus.consumerAckFloor(Streams.Work, 'work_effects'),
    (floor) => floor !== null && floor >= one,
  );
  await until(
    async () => inbox.attempts(),
    (n) => n > 0,
  );
  await acknowledge();

  const partial = await host.gesture({ op_id: 'trim-1', actor: 'ada', gesture: { kind: 'trim' } });
  t.match(partial, { outcome: 'ok', kind: 'retention.trimmed' });
  t.equal(view.state().retention.trim?.below, owed, 'only the records before the owed one go');
  t.equal((await info()).firstSeq, owed);
  t.ok(await bus.getMessage(Streams.Work, owed), 'the record whose wake is owed is kept');
  t.ok(
    lines.some((l) => l.includes('"event":"work_trim_held_by_effects"')),
    'the hold is logged',
  );
  const refused = await host.gesture({ op_id: 'trim-2', actor: 'ada', gesture: { kind: 'trim' } });
  t.match(refused, {
    outcome: 'refused',
    error: 'nothing_to_trim',
    detail: new RegExp(`effects consumer work_effects .*record ${owed} are not delivered yet`),
  });

  const capped = await host.gesture({
    op_id: 'cap',
    actor: 'ada',
    gesture: { kind: 'capacity', max_records: 1, auto_trim: true },
  });
  t.match(capped, { outcome: 'ok' });
  await acknowledge();
  await look.look();
  t.equal((await info()).firstSeq, owed, 'an automatic trim leaves it too');
  t.ok(
    lines.some((l) => l.includes('"event":"work_auto_trim_refused"') && l.includes('work_effects')),
    'the automatic trim logs why it is refused',
  );

  inbox.heal();
  await effectsDelivered(bus, 45_000);
  await acknowledge();
  if (after === 'by hand') {
    const trimmed = await host.gesture({ op_id: 'trim-3', actor: 'ada', gesture: { kind: 'trim' } });
    t.match(trimmed, { outcome: 'ok', kind: 'retention.trimmed' });
  } else {
    await look.look();
    t.match(view.state().retention.trim, { by: AUTO_TRIM_ACTOR });
  }
  t.ok((await info()).firstSeq > owed, `trimmed past it once delivered (the log starts at ${(await info()).firstSeq})`); // prettier-ignore
  t.equal(await bus.getMessage(Streams.Work, owed), null, 'the delivered record is gone');
}

for (const after of ['by hand', 'automatically'] as const) {
  t.test(`memory bus: an owed record is kept, then trimmed ${after} once delivered`, async (t) => {
    const bus = await openMemoryBus({});
    t.teardown(() => bus.close());
    await scenario(t, bus, after);
  });

  t.test(`JetStream: an owed record is kept, then trimmed ${after} once delivered`, async (t) => {
    const server = await startNatsServer({ t });
    const bus = await openBus({ type: 'jetstream', url: server.url });
    t.teardown(() => bus.close());
    await scenario(t, bus, after);
  });
}
