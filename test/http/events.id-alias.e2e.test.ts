/**
 * The `event` question reads its id as `event_id` or its other name `id`, one parameter under two names, as
 * the seat filter reads `agent_id` and `seat`: two different ids are refused 400 `bad_params` alike, rather
 * than one answered and the other silently dropped. Over a real listener.
 */
import t from 'tap';
import { publishEvent } from '../../bus/index.js';
import { event } from '../projections/fixtures/events.js';
import { startEventsNode } from './fixtures/events-node.js';
import { call } from './fixtures/gateway-harness.js';

t.test('event_id and id naming two events are refused as the seat filter refuses two seats', async (t) => {
  const { h, bus, events } = await startEventsNode(t);
  const at = Date.now() - 60_000;
  const first = event('TaskCreated', new Date(at).toISOString(), { agent_id: 'ada' });
  const second = event('TaskCreated', new Date(at + 1000).toISOString(), { agent_id: 'ada' });
  for (const e of [first, second]) await publishEvent(bus, e);
  await events.projection.until(2, 30_000);

  // One event under both names, or either name alone (blank reads as absent), is that event.
  for (const query of [
    `event_id=${first.id}`,
    `id=${first.id}`,
    `event_id=${first.id}&id=${first.id}`,
    `event_id=&id=${first.id}`,
    `event_id=${first.id}&id=`,
  ]) {
    const read = await call(`${h.base}/query/event?${query}`);
    t.equal(read.status, 200, query);
    t.equal(read.json?.['id'], first.id, query);
  }

  const seats = await call(`${h.base}/query/events?agent_id=ada&seat=grace`);
  t.equal(seats.status, 400);
  const shape = (json: Record<string, unknown> | null | undefined) => ({
    keys: Object.keys(json ?? {}).sort(),
    error: json?.['error'],
  });
  for (const path of [
    `/query/event?event_id=${first.id}&id=${second.id}`,
    `/query/event?id=${second.id}&event_id=${first.id}`,
    `/events/${first.id}?id=${second.id}`,
  ]) {
    const refused = await call(`${h.base}${path}`);
    t.equal(refused.status, 400, path);
    t.match(
      refused.json,
      {
        error: 'bad_params',
        detail: /event_id and id name the same parameter/,
        hint: /one parameter under two names/,
      },
      path,
    );
    t.same(shape(refused.json), shape(seats.json), `${path}: the seat filter's refusal, code and fields`);
  }
});
