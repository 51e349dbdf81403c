/**
 * The scheduler duty and firing claims on a real nats-server, each host on its own connection as two
 * nodes would be: racing candidates get one lease, and a stalled holder that still believes it holds
 * the duty does not fire a second time what its successor fired.
 */
import t, { type Test } from 'tap';
import { acquireDuty, startScheduler } from '../../actors/index.js';
import {
  Buckets,
  ensureCatalogue,
  openBus,
  SCHEDULE_CLAIMS_TTL_MS,
  Streams,
  Subjects,
  type Bus,
} from '../../bus/index.js';
import { aSchedule } from '../fixtures/schedules/schedule.js';
import { ManualClock } from '../harness/manual-clock.js';
import { startNatsServer } from '../harness/nats-server.js';
import { brief, ledger, silent } from './fixtures/scheduler-bus.js';

const server = await startNatsServer({ t });

async function node(t: Test) {
  const bus: Bus = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => bus.close());
  const { coord } = await ensureCatalogue(bus);
  const claims = await bus.kv({ name: Buckets.ScheduleClaims, ttlMs: SCHEDULE_CLAIMS_TTL_MS });
  return { bus, coord, claims };
}

const hourly = aSchedule({ scope_type: 'role', scope_id: 'alice', catchup: true, runners: ['alice'] });

t.test('racing candidates for a free duty: exactly one wins', async (t) => {
  const a = await node(t);
  const b = await node(t);
  const now = new Date('2026-01-01T00:00:00Z');
  const results = await Promise.all([
    acquireDuty(a.coord, { duty: 'race', node: 'node-a', instance: 'a' }, now, 30_000),
    acquireDuty(b.coord, { duty: 'race', node: 'node-b', instance: 'b' }, now, 30_000),
  ]);
  t.same(results.map((r) => r.won).sort(), [false, true]);
});

t.test('a stalled holder and its successor fire each (schedule, time, target) once', async (t) => {
  const a = await node(t);
  const b = await node(t);
  const clockA = new ManualClock('2026-02-01T11:59:55Z');
  const clockB = new ManualClock('2026-02-01T11:59:55Z');
  const hostA = startScheduler({ ...a, nodeId: 'node-a', clock: clockA, logger: silent });
  const hostB = startScheduler({ ...b, nodeId: 'node-b', clock: clockB, logger: silent });
  t.teardown(() => hostA.stop());
  t.teardown(() => hostB.stop());
  await hostA.plan([hourly]);
  await hostB.plan([hourly]);
  t.same([hostA.holding(), hostB.holding()], [true, false]);

  await clockB.advanceTo('2026-02-01T12:00:26Z');
  t.equal(hostB.holding(), true, 'B took the expired lease');
  await clockA.advanceTo('2026-02-01T12:00:06Z');
  t.equal(hostA.holding(), false);

  const rows = brief(await ledger(a.bus)).filter((r) => r.includes('12:00'));
  t.same(rows, ['hourly alice 12:00 fired']);
  // A work-queue stream cannot be replayed on JetStream: count what it holds instead.
  t.equal((await a.bus.streamInfo(Streams.Inbox)).messages, 1, 'one wake stored');
  const wake = await a.bus.lastMessage(Streams.Inbox, Subjects.agentInbox('alice'));
  t.match(JSON.parse(new TextDecoder().decode(wake?.data)), {
    payload: { scheduled_at: '2026-02-01T12:00:00.000Z' },
  });
});
