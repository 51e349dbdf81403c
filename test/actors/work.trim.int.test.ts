/**
 * Trimming the work log (ops/work-tracker.md "Retention"), on both bus engines: after items are created,
 * commented and moved, and the node acknowledged them, a trim writes a snapshot and removes the records
 * below the floor; a fresh projection on the trimmed stream starts from the snapshot and reads the same
 * items, comments and activity, and the next item takes the next key. With no readable snapshot the
 * fresh node refuses to serve rather than answer an empty tracker.
 */
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { startRetentionAcks, startWorkHost, type WorkContext } from '../../actors/index.js';
import { Buckets, ensureCatalogue, openBus, Streams, type Bus } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { followWork, type WorkView } from '../../projections/index.js';
import { projectsOf, seatKindsOf, type WorkState } from '../../schema/index.js';
import { company, effectsDelivered } from '../http/fixtures/work-harness.js';
import { startNatsServer } from '../harness/nats-server.js';

const logger = pino({ level: 'silent' });
const context: WorkContext = { projects: projectsOf(company), seats: seatKindsOf(company) };

/** What a reader sees: items by key with their comments and history, the activity, the counters. */
function readable(state: WorkState) {
  return {
    items: [...state.items.values()]
      .map((i) => ({
        key: i.key,
        status: i.status,
        title: i.fields.title,
        comments: i.comments,
        history: i.history,
      }))
      .sort((a, b) => a.key.localeCompare(b.key)),
    activity: state.activity.rows(),
    counters: [...state.counters],
    everKeys: [...state.everKeys],
  };
}

async function scenario(t: Test, bus: Bus): Promise<void> {
  await ensureCatalogue(bus);
  const views: WorkView[] = [];
  const follow = async () => {
    const view = await followWork({ bus, logger });
    views.push(view);
    return view;
  };
  t.teardown(async () => {
    for (const v of views) await v.stop();
  });
  const view = await follow();
  const host = await startWorkHost({ bus, view, context: () => context, nodeId: 'node-0', logger });
  t.teardown(() => host.stop());
  const acks = startRetentionAcks({ bus, view, nodeId: 'node-0', logger, intervalMs: 3_600_000 });
  t.teardown(() => acks.stop());
  const write = async (op_id: string, change: Parameters<typeof host.write>[0]['change']) => {
    const reply = await host.write({ op_id, actor: 'ada', turn_id: null, change });
    if (reply.outcome !== 'ok') throw new Error(`${op_id}: ${reply.error} ${reply.detail}`);
    return reply;
  };
  const lastSeq = async () => (await bus.streamInfo(Streams.Work)).lastSeq;

  for (const title of ['One', 'Two', 'Three'])
    await write(`c-${title}`, { kind: 'create', project: 'ENG', fields: { title } });
  await write('cm-1', { kind: 'comment', item: 'ENG-1', body: 'first words' });
  await write('mv-2', { kind: 'move', item: 'ENG-2', to: 'in_progress' });
  await write('up-3', { kind: 'update', item: 'ENG-3', changes: { title: 'Three, renamed' } });
  await acks.acknowledge();
  t.ok(await view.until(await lastSeq(), 10_000));
  // The effects follow the writes: a trim would stay below a record whose effects are still owed.
  await effectsDelivered(bus);
  const before = readable(view.state());
  const headBefore = await lastSeq();

  const trimmed = await host.gesture({ op_id: 'trim-1', actor: 'ada', gesture: { kind: 'trim' } });
  t.match(trimmed, { outcome: 'ok', kind: 'retention.trimmed', repeated: false });
  const info = await bus.streamInfo(Streams.Work);
  const trim = view.state().retention.trim;
  t.ok(trim, 'the trim is in the state');
  t.ok(info.firstSeq > 1, `records were removed (the log starts at ${info.firstSeq})`);
  t.equal(info.firstSeq, trim?.below, 'the log starts where the trim says');
  t.ok((trim?.snapshot_seq ?? 0) >= headBefore, 'the snapshot stands for everything removed');
  t.equal(await bus.getMessage(Streams.Work, 1), null, 'the first record is gone');
  t.match(
    await host.gesture({ op_id: 'trim-1', actor: 'ada', gesture: { kind: 'trim' } }),
    { outcome: 'ok', repeated: true },
    'a retry answers the first outcome',
  );

  // A node that starts now cannot fold from the first record: it starts from the snapshot.
  const fresh = await follow();
  t.equal(fresh.running.boot.from, 'snapshot');
  t.equal(fresh.unavailable(), null);
  t.same(readable(fresh.state()), before, 'the same items, comments, history and activity');
  t.match(fresh.state().retention.trim, { below: info.firstSeq, op_id: 'trim-1' });
  t.same(fresh.state().retention.log, view.state().retention.log, 'the log size as the live node has it');

  // The counters survive: the next item on a host reading the fresh state takes the next key.
  await host.stop();
  const next = await startWorkHost({ bus, view: fresh, context: () => context, nodeId: 'node-1', logger });
  t.teardown(() => next.stop());
  const created = await next.write({
    op_id: 'c-Four',
    actor: 'ada',
    turn_id: null,
    change: { kind: 'create', project: 'ENG', fields: { title: 'Four' } },
  });
  t.match(created, { outcome: 'ok', key: 'ENG-4' });

  // Without a readable snapshot a node must not serve an empty tracker.
  const snapshots = await bus.kv({ name: Buckets.WorkSnapshots, history: 1 });
  for (const key of await snapshots.keys()) await snapshots.delete(key);
  const blind = await follow();
  t.match(blind.unavailable(), /trimmed below/);
  const refusing = await startWorkHost({
    bus,
    view: blind,
    context: () => context,
    nodeId: 'node-2',
    logger,
    deliverEffects: false,
  });
  t.teardown(() => refusing.stop());
  t.match(
    await refusing.write({
      op_id: 'c-Five',
      actor: 'ada',
      turn_id: null,
      change: { kind: 'create', project: 'ENG', fields: { title: 'Five' } },
    }),
    { outcome: 'refused', error: 'work_unavailable' },
  );
}

t.test('memory bus: a trimmed work log is read from its snapshot', async (t) => {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await scenario(t, bus);
});

t.test('JetStream: a trimmed work log is read from its snapshot', async (t) => {
  const server = await startNatsServer({ t });
  const bus = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => bus.close());
  await scenario(t, bus);
});
