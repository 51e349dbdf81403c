/**
 * The spec's Limits rows for the event reads, asked over a real listener: a page of `/events` holds at most
 * 400 rows whatever `limit` asks, and `/events/trace/{trace_id}` answers at most 500 events, oldest first,
 * with the trace's `total`. The query layer's own tests hold the same bounds; these hold the routes to them.
 */
import t from 'tap';
import { event, publishAll } from '../projections/fixtures/events.js';
import { stamp } from '../projections/fixtures/events-paging.js';
import { startEventsNode } from './fixtures/events-node.js';
import { call } from './fixtures/gateway-harness.js';

type Rows = Array<Record<string, unknown>>;

t.test('GET /events answers at most 400 rows a page; a larger limit is read as 400', async (t) => {
  const { h, bus, events } = await startEventsNode(t);
  const all = Array.from({ length: 450 }, (_, i) => event('TaskCreated', stamp(i * 10, 0)));
  await publishAll(bus, all);
  await events.projection.until(all.length, 30_000);
  for (const limit of ['400', '401', '1000', '100000']) {
    const page = await call(`${h.base}/events?limit=${limit}`);
    t.equal(page.status, 200, `limit=${limit}`);
    t.equal((page.json?.['rows'] as Rows).length, 400, `limit=${limit}: 400 rows`);
    t.equal(page.json?.['exhausted'], false, `limit=${limit}: more remain`);
  }
  const first = await call(`${h.base}/events?limit=1000`);
  const newest = all.slice(-400).reverse();
  t.same(
    (first.json?.['rows'] as Rows).map((r) => r['id']),
    newest.map((e) => e.id),
    'the newest 400, newest first',
  );
  const next = first.json?.['next'] as { before_time: string; before_id: string };
  const rest = await call(
    `${h.base}/events?limit=1000&before_time=${encodeURIComponent(next.before_time)}&before_id=${encodeURIComponent(next.before_id)}`,
  );
  t.equal((rest.json?.['rows'] as Rows).length, 50, 'the next page holds the rest');
  t.equal(rest.json?.['exhausted'], true);
});

t.test('GET /events/trace/{id} answers at most 500 events, oldest first, and the total', async (t) => {
  const { h, bus, events } = await startEventsNode(t);
  const trace = 'c'.repeat(32);
  const traced = Array.from({ length: 520 }, (_, i) =>
    event('agent_phase_started', stamp(i * 10, i % 3), { trace_id: trace }),
  );
  // Published newest first, so an answer in arrival order would show the newest.
  await publishAll(bus, [...traced].reverse());
  await publishAll(bus, [event('TaskCreated', stamp(0, 0))]);
  await events.projection.until(traced.length + 1, 30_000);
  const answer = await call(`${h.base}/events/trace/${trace}`);
  t.equal(answer.status, 200);
  t.equal(answer.json?.['total'], 520, 'the total counts every event of the trace');
  const got = answer.json?.['events'] as Rows;
  t.equal(got.length, 500);
  t.same(
    got.map((e) => e['id']),
    traced.slice(0, 500).map((e) => e.id),
    'the oldest 500, oldest first',
  );
});

t.test(
  'a blank or padded filter on GET /events reads as event_series reads it: blank is none, padding is trimmed',
  async (t) => {
    const { h, bus, events } = await startEventsNode(t);
    const all = Array.from({ length: 5 }, (_, i) => event('TaskCreated', stamp(i * 10, 0)));
    await publishAll(bus, all);
    await events.projection.until(all.length, 30_000);
    for (const query of [
      'category=',
      'feed_only=',
      'limit=%20',
      'category=%20task%20',
      'feed_only=%20false',
    ]) {
      const page = await call(`${h.base}/events?${query}`);
      t.equal(page.status, 200, `/events?${query}: ${JSON.stringify(page.json)}`);
      t.equal((page.json?.['rows'] as Rows | undefined)?.length, 5, `/events?${query}: every row`);
      const series = await call(`${h.base}/query/event_series?${query.startsWith('limit') ? '' : query}`);
      t.equal(series.status, 200, `event_series?${query}`);
    }
    const refused = await call(`${h.base}/events?category=nope`);
    t.equal(refused.json?.['error'], 'bad_params', 'a category outside the eight is still refused');
  },
);
