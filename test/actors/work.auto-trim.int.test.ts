/**
 * Automatic trims (ops/work-tracker.md "Retention"): nothing is trimmed on its own until the capacity says
 * `auto_trim`; then a look finds the log over its capacity and trims it to within (a fifth of each limit
 * left free, so the next trim waits for more than one record), recorded under the
 * automatic actor; a log within its capacity, or under an open maintenance window, is left alone; two nodes
 * looking at once record one trim.
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import t, { type Test } from 'tap';
import { startRetentionAcks, startWorkHost, type WorkContext } from '../../actors/index.js';
import { AUTO_TRIM_ACTOR, startAutoTrim } from '../../actors/work/work.retention.auto.js';
import { ensureCatalogue, Streams } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { followWork } from '../../projections/index.js';
import { overCapacity, projectsOf, seatKindsOf } from '../../schema/index.js';
import { company, effectsDelivered } from '../http/fixtures/work-harness.js';

const context: WorkContext = { projects: projectsOf(company), seats: seatKindsOf(company) };
const HOUR = 3_600_000;

/** A bus, the work view and one node's work host (its own looks an hour apart: the tests look by hand). */
async function node(t: Test, logger: Logger) {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const view = await followWork({ bus, logger });
  t.teardown(() => view.stop());
  const host = await startWorkHost({ bus, view, context: () => context, nodeId: 'node-0', logger, autoTrimEveryMs: HOUR }); // prettier-ignore
  t.teardown(() => host.stop());
  return { bus, view, host };
}

t.test('with auto_trim a look trims a log over its capacity to within it, once across nodes', async (t) => {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString()), done()) })); // prettier-ignore
  const { bus, view, host } = await node(t, logger);
  const peer = await startWorkHost({ bus, view, context: () => context, nodeId: 'node-1', logger, deliverEffects: false, autoTrimEveryMs: HOUR }); // prettier-ignore
  t.teardown(() => peer.stop());
  const acks = startRetentionAcks({ bus, view, nodeId: 'node-0', logger, intervalMs: HOUR });
  t.teardown(() => acks.stop());
  const looks = [host, peer].map((h) =>
    startAutoTrim({ bus, view, gesture: (cmd) => h.gesture(cmd), logger, everyMs: HOUR }),
  );
  t.teardown(() => Promise.all(looks.map((l) => l.stop())));
  const first = async () => (await bus.streamInfo(Streams.Work)).firstSeq;

  for (let i = 1; i <= 8; i++) {
    const reply = await host.write({ op_id: `c-${i}`, actor: 'ada', turn_id: null, change: { kind: 'create', project: 'ENG', fields: { title: `Item ${i}` } } }); // prettier-ignore
    t.equal(reply.outcome, 'ok');
  }
  const capped = await host.gesture({
    op_id: 'cap-1',
    actor: 'ada',
    gesture: { kind: 'capacity', max_records: 4 },
  });
  t.match(capped, { outcome: 'ok', kind: 'retention.capacity_set' });
  await acks.acknowledge();
  t.ok(await view.until((await bus.streamInfo(Streams.Work)).lastSeq, 10_000));
  t.same(overCapacity(view.state().retention, new Date()), ['records'], 'over its capacity');

  await looks[0]!.look();
  t.equal(await first(), 1, 'without auto_trim nothing is trimmed on its own');

  const auto = await host.gesture({
    op_id: 'cap-2',
    actor: 'ada',
    gesture: { kind: 'capacity', auto_trim: true },
  });
  t.match(auto, { outcome: 'ok' });
  t.match(view.state().retention.capacity, { max_records: 4, auto_trim: true, max_bytes: null }, 'the limits are kept'); // prettier-ignore
  await acks.acknowledge();
  t.ok(await view.until((await bus.streamInfo(Streams.Work)).lastSeq, 10_000));
  // The effects follow the writes: a trim would stay below a record whose effects are still owed.
  await effectsDelivered(bus);

  await Promise.all(looks.map((l) => l.look()));
  const trim = view.state().retention.trim;
  t.ok((await first()) > 1, `trimmed: the log starts at ${await first()}`);
  t.match(trim, { by: AUTO_TRIM_ACTOR, op_id: /^auto-trim:\d+:1$/ });
  t.same(overCapacity(view.state().retention, new Date()), [], 'within its capacity now');
  const trims = [...view.state().retention.ops.values()].filter((o) => o.kind === 'retention.trimmed');
  t.equal(trims.length, 1, 'two nodes looking at once record one trim');
  t.ok(
    lines.some((l) => l.includes('"event":"work_auto_trim"')),
    'the trim is logged',
  );

  const below = trim?.below;
  await looks[1]!.look();
  t.equal(view.state().retention.trim?.below, below, 'a log within its capacity is left alone');
  t.equal(view.state().items.size, 8, 'every item still reads');
});

t.test('an open maintenance window holds automatic trims back', async (t) => {
  const logger = pino({ level: 'silent' });
  const { bus, view, host } = await node(t, logger);
  const acks = startRetentionAcks({ bus, view, nodeId: 'node-0', logger, intervalMs: HOUR });
  t.teardown(() => acks.stop());
  const look = startAutoTrim({ bus, view, gesture: (cmd) => host.gesture(cmd), logger, everyMs: HOUR });
  t.teardown(() => look.stop());
  for (let i = 1; i <= 4; i++)
    await host.write({ op_id: `c-${i}`, actor: 'ada', turn_id: null, change: { kind: 'create', project: 'ENG', fields: { title: `Item ${i}` } } }); // prettier-ignore
  await host.gesture({
    op_id: 'cap',
    actor: 'ada',
    gesture: { kind: 'capacity', max_records: 1, auto_trim: true },
  });
  await acks.acknowledge();
  t.ok(await view.until((await bus.streamInfo(Streams.Work)).lastSeq, 10_000));
  const opened = await host.gesture({
    op_id: 'mw',
    actor: 'ada',
    gesture: { kind: 'maintenance_open', reason: 'upgrade' },
  });
  t.match(opened, { outcome: 'ok' });
  await look.look();
  t.equal((await bus.streamInfo(Streams.Work)).firstSeq, 1, 'nothing trimmed while the window is open');
  t.equal(view.state().retention.trim, null);
});
