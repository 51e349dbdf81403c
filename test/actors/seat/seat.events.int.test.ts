import t from 'tap';
import { openMemoryBus, Subjects, type Bus } from '../../../bus/index.js';
import { seatEvents } from '../../../actors/seat/seat.events.js';

/** Ada's `progress`, as a turn's live view calls it. */
function progressOf(bus: Bus): (payload: Record<string, unknown>) => void {
  const events = seatEvents({
    bus,
    source: 'node-0/seat/ada',
    handle: 'ada',
    fence: () => undefined,
    now: () => new Date(),
  }).eventsFor('0'.repeat(32));
  return (payload) => events.progress(payload);
}

t.test('a live-view frame reaches live subscribers on the stream-only subject', async (t) => {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  const seen: string[] = [];
  const sub = bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (m) => seen.push(m.subject));
  t.teardown(() => sub.stop());
  progressOf(bus)({ turn_id: 't', phase: 'plan', iteration: 0 });
  t.same(seen, ['svc.live.agent_turn_progress']);
});

t.test('a frame the bus can no longer take is dropped, not thrown: frames go out from timers', async (t) => {
  const bus = await openMemoryBus();
  const progress = progressOf(bus);
  await bus.close();
  t.doesNotThrow(() => progress({ turn_id: 't', phase: 'plan', iteration: 0 }));
});
