import t from 'tap';
import {
  ensureCatalogue,
  LiveOriginHeader,
  openMemoryBus,
  Streams,
  Subjects,
  UnmappedEventTypeError,
  type Bus,
} from '../../../bus/index.js';
import { leaseHeaders } from '../../../actors/lease/index.js';
import { seatEvents, type LocalProgress } from '../../../actors/seat/seat.events.js';
import type { EventRecord, Payloads } from '../../../schema/index.js';

const trace = '0'.repeat(32);

/** Ada's events, under lease epoch 3. */
function adaEvents(bus: Bus) {
  return seatEvents({
    bus,
    source: 'node-0/seat/ada',
    handle: 'ada',
    fence: () => undefined,
    now: () => new Date(),
    headers: leaseHeaders(3) ?? {},
  });
}

/** Ada's `progress`, as a turn's live view calls it. */
function progressOf(bus: Bus, localProgress?: LocalProgress): (payload: Payloads.AgentTurnProgress) => void {
  const events = seatEvents({
    bus,
    source: 'node-0/seat/ada',
    handle: 'ada',
    fence: () => undefined,
    now: () => new Date(),
    ...(localProgress ? { localProgress } : {}),
  }).eventsFor(trace);
  return (payload) => events.progress(payload);
}

const frame: Payloads.AgentTurnProgress = {
  turn_id: 't',
  phase: 'plan',
  iteration: 0,
  round_num: -1,
  max_rounds: 4,
  response: '',
  tool_calls: [],
};

t.test('a live-view frame reaches live subscribers on the stream-only subject', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  const seen: string[] = [];
  const sub = bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (m) => seen.push(m.subject));
  t.teardown(() => sub.stop());
  progressOf(bus)(frame);
  t.same(seen, ['svc.live.agent_turn_progress']);
});

t.test('a frame the bus can no longer take is dropped, not thrown: frames go out from timers', async (t) => {
  const bus = await openMemoryBus();
  const progress = progressOf(bus);
  await bus.close();
  t.doesNotThrow(() => progress(frame));
});

t.test(
  "the node's own read models take a frame as it is made, and its bus copy names the node",
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    const seen: Array<{ headers: Readonly<Record<string, string>> }> = [];
    const sub = bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (m) => seen.push(m));
    t.teardown(() => sub.stop());
    const folded: Array<[EventRecord, Payloads.AgentTurnProgress]> = [];
    progressOf(bus, { node: 'node-0', fold: (record, payload) => folded.push([record, payload]) })(frame);
    t.equal(folded.length, 1);
    t.match(folded[0]?.[0], { type: 'agent_turn_progress', agent_id: 'ada', payload: frame });
    t.equal(folded[0]?.[1], frame, 'the typed frame itself, not a decoded copy');
    t.equal(seen.length, 1);
    t.equal(seen[0]?.headers[LiveOriginHeader], 'node-0');
    // Without a local fold a frame names no node: every node's read models fold it from the bus.
    progressOf(bus)(frame);
    t.equal(seen[1]?.headers[LiveOriginHeader], undefined);
  },
);

t.test('a seat record of a type without a category is refused, never stored as lifecycle', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const events = adaEvents(bus);
  await t.rejects(events.eventsFor(trace).publish('made_up', { turn_id: 't' }), UnmappedEventTypeError);
  t.throws(() => events.event('made_up', {}), UnmappedEventTypeError, 'no record is made for it');
  t.equal((await bus.streamInfo(Streams.Events)).messages, 0, 'nothing stored');
});

t.test('a seat record naming another category than the map gives its type is refused', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const events = adaEvents(bus);
  const breach = events.event('budget_exhausted', { scope: 'seat' }, true, trace);
  t.equal(breach.category, 'decision', 'the map decides the category');
  await t.rejects(events.publishEvent({ ...breach, category: 'lifecycle' }), UnmappedEventTypeError);
  t.equal((await bus.streamInfo(Streams.Events)).messages, 0, 'nothing stored');
});

t.test('a stored seat record goes out under its id with the lease headers, once', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const events = adaEvents(bus).eventsFor(trace);
  await events.publish('agent_paused', { paused: null }, false, 'paused-1');
  await events.publish('agent_paused', { paused: null }, false, 'paused-1');
  const stored = await bus.lastMessage(Streams.Events, Subjects.event('agent_paused'));
  t.equal((await bus.streamInfo(Streams.Events)).messages, 1, 'the id is the message id');
  t.match(stored?.headers, leaseHeaders(3), 'the lease epoch it acts under');
  t.match(JSON.parse(new TextDecoder().decode(stored?.data)), { id: 'paused-1', category: 'lifecycle' });
});
