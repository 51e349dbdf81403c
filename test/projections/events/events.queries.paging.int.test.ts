// Events listing pages: keyset paging with tied stamps, the page bound and its parameters, a type filter.
import t from 'tap';
import { eventsProjection, listEvents, QueryError, runProjection } from '../../../projections/index.js';
import { compareInstants, parseInstant } from '../../../schema/index.js';
import { event, eventBus, publishAll, sourceOf } from '../fixtures/events.js';
import { allPages, listQuery, stamp } from '../fixtures/events-paging.js';

t.test('keyset paging over 2,000 events with tied timestamps loses and repeats no row', async (t) => {
  const bus = await eventBus(t);
  const events = Array.from({ length: 2000 }, (_, i) => event('TaskCreated', stamp((i % 37) * 1000, i % 3)));
  await publishAll(bus, events);
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  for (const limit of [1, 37, 400]) {
    const { rows, pages } = await allPages(src, 'category=task', limit);
    t.equal(rows.length, 2000, `limit ${limit}: every row once`);
    t.equal(new Set(rows.map((r) => r.id)).size, 2000, `limit ${limit}: no row repeated`);
    t.equal(pages, Math.ceil(2000 / limit), `limit ${limit}: the last full page already says exhausted`);
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1]!;
      const b = rows[i]!;
      const c = compareInstants(parseInstant(a.timestamp)!, parseInstant(b.timestamp)!);
      if (c < 0 || (c === 0 && a.id < b.id)) {
        t.fail(`limit ${limit}: row ${i} out of (timestamp, id) descending order`);
        break;
      }
    }
  }
  const rows = (await allPages(src, 'feed_only=true', 400)).rows;
  t.equal(rows.length, 2000);
});

t.test('a page is at most 400 rows; bad parameters answer bad_params', async (t) => {
  const bus = await eventBus(t);
  await publishAll(
    bus,
    Array.from({ length: 450 }, (_, i) => event('TaskCreated', stamp(i, 0))),
  );
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  const page = await listEvents(src, listQuery('limit=1000'));
  t.equal(page.rows.length, 400);
  t.equal(page.exhausted, false);
  t.same(page.coverage, { nodes: [{ id: 'node-0', answered: true }], complete: true });
  const refused = (s: string) => {
    try {
      listQuery(s);
      t.fail(`${s} was accepted`);
    } catch (e) {
      t.ok(e instanceof QueryError && e.code === 'bad_params', s);
      // The hint speaks of the parameter refused, not of another route's.
      t.ok(e instanceof QueryError && e.hint !== undefined && !e.hint.includes('dry_run'), `${s}: own hint`);
    }
  };
  refused('before_time=2026-11-22T10:00:00Z');
  refused('before_id=abc');
  refused('before_time=yesterday&before_id=abc');
  refused('before_time=2026-11-22T10:00:00%2B99:99&before_id=abc');
  // A blank half is an absent one, as `turns` and `phases` read their cursor: never a cursor of its own.
  refused('before_time=2026-11-22T10:00:00Z&before_id=');
  refused('before_time=%20&before_id=abc');
  refused('limit=0');
  refused('limit=ten');
  refused('category=nonsense');
  refused('feed_only=yes');
  refused('limit=1&limit=2');
  refused('type=NoSuchType');
  refused('type=TaskCreated&type=TaskAssigned');
  refused('agent_id=ada&seat=bob');
  t.equal(listQuery('').limit, 100);
  t.equal(listQuery('limit=').limit, 100, 'a blank limit reads as absent, as on the other listings');
  t.equal(listQuery('before_time=&before_id=').cursor, null, 'a blank cursor is the newest page');
  // `seat` is the seat filter's other name: a blank `agent_id` beside it does not widen the read.
  t.equal(listQuery('agent_id=&seat=ada').agentId, 'ada');
  t.equal(listQuery('agent_id=ada&seat=ada').agentId, 'ada');
  // Handles are lowercase: a seat written with capitals is that seat, not an empty read.
  t.equal(listQuery('seat=Ada').agentId, 'ada');
  t.equal(listQuery('agent_id=ADA&seat=ada').agentId, 'ada');
});

t.test('type lists one event type across pages, from replay and from the live stream alike', async (t) => {
  const bus = await eventBus(t);
  const types = ['TaskCreated', 'TaskAssigned', 'TaskCompleted'];
  await publishAll(
    bus,
    Array.from({ length: 600 }, (_, i) => event(types[i % 3]!, stamp(i * 10, i % 3))),
  );
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  const replayed = await allPages(src, 'type=TaskAssigned', 37);
  t.equal(replayed.rows.length, 200, 'every TaskAssigned row, through the pages');
  t.ok(
    replayed.rows.every((r) => r.type === 'TaskAssigned'),
    'and no other type',
  );
  await publishAll(bus, [event('TaskAssigned', stamp(7000, 0)), event('TaskCreated', stamp(7001, 0))]);
  t.ok(await running.when((s) => s.index.size === 602, 10_000), 'the live rows are folded');
  const live = await listEvents(src, listQuery('type=TaskAssigned&limit=400'));
  t.equal(live.rows.length, 201, 'the live TaskAssigned row is listed with the replayed ones');
  const combined = await listEvents(src, listQuery('type=TaskCreated&category=task&limit=400'));
  t.equal(combined.rows.length, 201, 'type combines with the other filters');
  const none = await listEvents(src, listQuery('type=ConfigRevisionApplied'));
  t.same(
    [none.rows.length, none.exhausted, none.next],
    [0, true, null],
    'a stored type never seen: empty, exhausted',
  );
});

t.test('a row stamped past the year 9999 by its offset gives a cursor that pages on', async (t) => {
  const bus = await eventBus(t);
  // Valid RFC 3339 whose instant (UTC) falls in the year 10000: the cursor cannot be written as 9999-….
  const far = event('TaskCreated', '9999-12-31T23:59:59.5-01:00');
  const older = event('TaskCreated', stamp(0, 0));
  await publishAll(bus, [far, older]);
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const { rows } = await allPages(sourceOf(bus, running), '', 1);
  t.same(
    rows.map((r) => r.id),
    [far.id, older.id],
  );
});
