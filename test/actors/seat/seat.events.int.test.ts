import t from 'tap';
import { LiveOriginHeader, openMemoryBus, Subjects, type Bus } from '../../../bus/index.js';
import { seatEvents, type LocalProgress } from '../../../actors/seat/seat.events.js';
import type { EventRecord, Payloads } from '../../../schema/index.js';

/** Ada's `progress`, as a turn's live view calls it. */
function progressOf(bus: Bus, localProgress?: LocalProgress): (payload: Payloads.AgentTurnProgress) => void {
  const events = seatEvents({
    bus,
    source: 'node-0/seat/ada',
    handle: 'ada',
    fence: () => undefined,
    now: () => new Date(),
    ...(localProgress ? { localProgress } : {}),
  }).eventsFor('0'.repeat(32));
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
