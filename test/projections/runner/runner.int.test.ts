import t from 'tap';
import { Streams } from '../../../bus/index.js';
import {
  eventsProjection,
  feedRows,
  listEvents,
  openCheckpoints,
  parseListQuery,
  runProjection,
  traceEvents,
  type EventsSource,
  type Projection,
} from '../../../projections/index.js';
import { event, eventBus, publishAll, sourceOf, tempDir } from '../fixtures/events.js';

const now = Date.now();
const stamp = (i: number) => new Date(now - 3600_000 + (i % 500) * 1000).toISOString();
const trace = 'b'.repeat(32);

/** Every answer the projection gives, page by page. */
async function answers(src: EventsSource): Promise<unknown> {
  const pages: unknown[] = [];
  let cursor = '';
  for (;;) {
    const page = await listEvents(src, parseListQuery(new URLSearchParams(`limit=113${cursor}`)));
    pages.push(page);
    if (page.next === null) break;
    cursor = `&before_time=${page.next.before_time}&before_id=${page.next.before_id}`;
  }
  const seat = await listEvents(src, parseListQuery(new URLSearchParams('agent_id=ada&limit=400')));
  return { pages, seat, feed: feedRows(src), trace: await traceEvents(src, trace) };
}

const batch = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) =>
    event(i % 5 === 0 ? 'auxiliary_spend' : 'agent_phase_started', stamp(from + i), {
      ...(i % 7 === 0 ? { trace_id: trace } : {}),
      ...(i % 3 === 0 ? { agent_id: 'ada' } : {}),
    }),
  );

t.test('replay from zero and checkpoint plus tail give identical answers', async (t) => {
  const dir = tempDir(t);
  const bus = await eventBus(t, `${dir}/bus`);
  const checkpoints = openCheckpoints(`${dir}/projections`);
  t.teardown(() => checkpoints.close());

  await publishAll(bus, batch(0, 1200));
  const first = await runProjection({ bus, projection: eventsProjection, checkpoints });
  t.equal(first.boot.from, 'zero');
  await first.stop();
  t.equal(checkpoints.load('events')?.seq, 1200, 'the checkpoint holds the sequence it reflects');

  await publishAll(bus, batch(1200, 700));
  const resumed = await runProjection({ bus, projection: eventsProjection, checkpoints });
  t.teardown(() => resumed.stop());
  t.same(
    resumed.boot,
    { from: 'checkpoint', checkpointSeq: 1200, replayed: 700 },
    'only the tail is replayed',
  );

  const fresh = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => fresh.stop());
  t.equal(fresh.boot.from, 'zero');

  // Live tail on both.
  await publishAll(bus, batch(1900, 150));
  const last = (await bus.streamInfo(Streams.Events)).lastSeq;
  t.ok(await resumed.until(last, 30_000));
  t.ok(await fresh.until(last, 30_000));
  const a = await answers(sourceOf(bus, resumed));
  const b = await answers(sourceOf(bus, fresh));
  t.same(a, b, 'every page, the seat filter, the feed and the trace agree');
  t.equal(
    (a as { trace: { total: number } }).trace.total,
    Math.ceil(1200 / 7) + Math.ceil(700 / 7) + Math.ceil(150 / 7),
  );
});

t.test('a checkpoint of another version is ignored and the projection replays from zero', async (t) => {
  const dir = tempDir(t);
  const bus = await eventBus(t);
  const checkpoints = openCheckpoints(dir);
  t.teardown(() => checkpoints.close());
  await publishAll(bus, batch(0, 50));
  const v1 = await runProjection({ bus, projection: eventsProjection, checkpoints });
  await v1.stop();
  const v2: Projection<ReturnType<typeof eventsProjection.init>> = {
    ...eventsProjection,
    version: eventsProjection.version + 1,
  };
  const running = await runProjection({ bus, projection: v2, checkpoints });
  t.teardown(() => running.stop());
  t.same(running.boot, { from: 'zero', checkpointSeq: 0, replayed: 50 });
  t.equal(checkpoints.load('events')?.version, v2.version, 'the new version wrote its own checkpoint');
});

t.test('a checkpoint past the end of the stream (a wiped store) is ignored', async (t) => {
  const dir = tempDir(t);
  const checkpoints = openCheckpoints(dir);
  t.teardown(() => checkpoints.close());
  checkpoints.save({
    name: 'events',
    version: eventsProjection.version,
    stream: Streams.Events,
    seq: 999,
    state: {},
  });
  const bus = await eventBus(t);
  await publishAll(bus, batch(0, 10));
  const running = await runProjection({ bus, projection: eventsProjection, checkpoints });
  t.teardown(() => running.stop());
  t.equal(running.boot.from, 'zero');
  t.equal(running.state().index.size, 10);
});

t.test('rebuild replays from zero through the same path', async (t) => {
  const bus = await eventBus(t);
  await publishAll(bus, batch(0, 30));
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const before = await answers(sourceOf(bus, running));
  await running.rebuild();
  t.same(await answers(sourceOf(bus, running)), before);
  await publishAll(bus, batch(30, 5));
  t.ok(await running.until(35, 30_000), 'the tail is followed again after a rebuild');
});
