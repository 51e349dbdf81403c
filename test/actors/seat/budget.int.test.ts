import t, { type Test } from 'tap';
import { createBudget, monthOf } from '../../../actors/index.js';
import { ensureCatalogue, openBus, openMemoryBus, Subjects, type Bus } from '../../../bus/index.js';
import type { SpendRecord } from '../../../schema/index.js';
import { startNatsServer } from '../../harness/nats-server.js';
import { until } from '../../harness/until.js';
import { spendBytes } from '../../../actors/seat/spend-bytes.js';

t.test('the budget window is the calendar month in the company timezone', async (t) => {
  const at = Date.parse('2026-03-01T03:00:00Z'); // 22:00 on 28 February in New York
  t.same(monthOf(at, 'America/New_York'), {
    key: '2026-02',
    start: '2026-02-01T05:00:00.000Z',
    end: '2026-03-01T05:00:00.000Z',
  });
  t.equal(monthOf(at, 'UTC').key, '2026-03', 'the same instant in another zone is in its own month');
  t.equal(monthOf(at + 3 * 3600_000, 'America/New_York').key, '2026-03', 'and the next month begins');
  t.equal(monthOf(at, 'Not/A_Zone').key, '2026-03', 'an unknown zone counts as UTC');
});

// Stored records reach the budget through its follower on its own time: wait for them, within a bound.
const BOUND = { timeoutMs: 10_000, everyMs: 10 };

const encoder = new TextEncoder();
let ids = 0;

function spend(handle: string, tokens: number, timestamp: string, id = `spend-${++ids}`): SpendRecord {
  return {
    id,
    timestamp,
    node: 'node-x',
    handle,
    agent_id: handle ? `agent-${handle}` : '',
    role: handle,
    turn_id: null,
    phase: 'execute',
    worker: null,
    provider: 'main',
    model: 'm',
    input_tokens: tokens,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    total_tokens: tokens,
  };
}

/** Stores a record as any node would; `msgId` differs from the id when a repeat outlived the dedup window. */
async function store(bus: Bus, record: SpendRecord, msgId = record.id): Promise<void> {
  await bus.publish(Subjects.spend('llm'), encoder.encode(JSON.stringify(record)), { msgId });
}

async function memoryBus(t: Test): Promise<Bus> {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  return bus;
}

const march = Date.parse('2026-03-15T12:00:00Z');
const inMarch = '2026-03-10T08:00:00.000Z';

t.test('every spend record of the month counts once, whoever stored it and however often', async (t) => {
  const bus = await memoryBus(t);
  const seats = Array.from({ length: 100 }, (_, i) => `s${i}`);
  for (const seat of seats) {
    await store(bus, spend(seat, 7, inMarch));
    const repeated = spend(seat, 3, inMarch);
    await store(bus, repeated);
    await store(bus, repeated, `${repeated.id}-again`); // the same record, stored twice
  }
  await store(bus, spend('', 10, inMarch)); // an auxiliary call for no seat: the org's only
  await store(bus, spend('s1', 500, '2026-02-27T08:00:00.000Z')); // last month
  const budget = createBudget({ bus, timezone: () => 'UTC', now: () => march });
  t.teardown(() => budget.stop());
  t.match(await budget.check('s1', { org: 2000, seat: 10 }), {
    scope: 'seat',
    cap: 10,
    used: 10,
    window_start: '2026-03-01T00:00:00.000Z',
    window_end: '2026-04-01T00:00:00.000Z',
  });
  t.match(await budget.check('s1', { org: 1010, seat: 0 }), { scope: 'org', cap: 1010, used: 1010 });
  t.equal(await budget.check('s1', { org: 1011, seat: 11 }), null, 'under both caps');
  t.equal(await budget.check('s1', { org: 0, seat: 0 }), null, 'no cap: nothing to refuse');
});

t.test(
  'a record stamped ahead counts in the month it was stored in, not the month a node reads it',
  async (t) => {
    // Stored at 22:00 on the last day of February; stamped three days ahead, in March.
    const storedAt = Date.parse('2026-02-28T22:00:00Z');
    const bus = await openMemoryBus({ clock: () => storedAt });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    await store(bus, spend('s1', 40, '2026-03-03T22:00:00.000Z'));
    const inFebruary = createBudget({ bus, timezone: () => 'UTC', now: () => storedAt });
    t.teardown(() => inFebruary.stop());
    t.match(await inFebruary.check('s1', { org: 0, seat: 40 }), { used: 40 }, 'February counts it');
    // A node whose first check comes in March (a restart, a node that joined) reads the same record.
    const inMarch = createBudget({
      bus,
      timezone: () => 'UTC',
      now: () => Date.parse('2026-03-02T10:00:00Z'),
    });
    t.teardown(() => inMarch.stop());
    t.equal(await inMarch.check('s1', { org: 0, seat: 40 }), null, 'March does not count it again');
  },
);

t.test('a record this node stored counts at once, and its copy read back does not count again', async (t) => {
  const bus = await memoryBus(t);
  const budget = createBudget({ bus, timezone: () => 'UTC', now: () => march });
  t.teardown(() => budget.stop());
  t.equal(await budget.check('ada', { org: 100, seat: 0 }), null);
  const record = spend('ada', 100, inMarch);
  budget.count(record);
  t.match(
    await budget.check('ada', { org: 100, seat: 0 }),
    { scope: 'org', used: 100 },
    'before it is stored',
  );
  await store(bus, record);
  await store(bus, spend('bob', 1, inMarch));
  // Bob's record comes after Ada's: once it is counted, Ada's copy has been read back too.
  await until(
    () => budget.check('ada', { org: 101, seat: 0 }),
    (over) => over !== null,
    BOUND,
  );
  t.match(await budget.check('ada', { org: 101, seat: 0 }), { used: 101 }, 'Ada once, Bob once');
});

t.test(
  'a record this node built, read back before it was counted, counts once from its own copy',
  async (t) => {
    const bus = await memoryBus(t);
    const budget = createBudget({ bus, timezone: () => 'UTC', now: () => march });
    t.teardown(() => budget.stop());
    t.equal(await budget.check('ada', { org: 0, seat: 40 }), null);
    const record = spend('ada', 40, inMarch);
    // Stored as the turn engine stores it (its bytes from `spendBytes`), its count not yet taken.
    await bus.publish(Subjects.spend('llm'), spendBytes(record), { msgId: record.id });
    await until(
      () => budget.check('ada', { org: 0, seat: 40 }),
      (over) => over !== null,
      BOUND,
    );
    budget.count(record);
    t.equal(await budget.check('ada', { org: 0, seat: 41 }), null, 'once, not again at its count');
    t.match(await budget.check('ada', { org: 0, seat: 40 }), { scope: 'seat', used: 40 });
  },
);

t.test('records another node stores after the first check are followed', async (t) => {
  const bus = await memoryBus(t);
  const budget = createBudget({ bus, timezone: () => 'UTC', now: () => march });
  t.teardown(() => budget.stop());
  t.equal(await budget.check('ada', { org: 0, seat: 50 }), null);
  await store(bus, spend('ada', 30, inMarch));
  await store(bus, spend('ada', 20, inMarch));
  await until(
    () => budget.check('ada', { org: 0, seat: 50 }),
    (over) => over !== null,
    BOUND,
  );
  t.match(await budget.check('ada', { org: 0, seat: 50 }), { scope: 'seat', used: 50 });
});

t.test('a new month or a new company timezone is counted afresh from the records', async (t) => {
  const bus = await memoryBus(t);
  let zone = 'UTC';
  let now = Date.parse('2026-03-31T23:30:00Z');
  const budget = createBudget({ bus, timezone: () => zone, now: () => now });
  t.teardown(() => budget.stop());
  await store(bus, spend('ada', 40, '2026-03-31T23:10:00.000Z')); // 1 April, 01:10 in Berlin
  await store(bus, spend('ada', 5, '2026-03-02T10:00:00.000Z'));
  t.match(await budget.check('ada', { org: 45, seat: 0 }), {
    used: 45,
    window_end: '2026-04-01T00:00:00.000Z',
  });
  zone = 'Europe/Berlin';
  t.match(
    await budget.check('ada', { org: 40, seat: 0 }),
    { used: 40, window_start: '2026-03-31T22:00:00.000Z' },
    'in Berlin the first record is April’s',
  );
  zone = 'UTC';
  now = Date.parse('2026-04-01T00:30:00Z');
  t.equal(await budget.check('ada', { org: 1, seat: 0 }), null, 'April in UTC has no spend yet');
});

t.test('a check with a cap waits for the month’s first read; checks without one never read', async (t) => {
  const bus = await memoryBus(t);
  let reads = 0;
  const counting = new Proxy(bus, {
    get(target, prop) {
      if (prop === 'replay') reads += 1;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  await store(bus, spend('ada', 80, inMarch));
  const budget = createBudget({ bus: counting, timezone: () => 'UTC', now: () => march });
  t.teardown(() => budget.stop());
  budget.count(spend('ada', 1000, inMarch)); // before the first read: that read finds what was stored
  t.equal(await budget.check('ada', { org: 0, seat: 0 }), null);
  t.equal(reads, 0, 'no cap: the records are not read');
  const [a, b] = await Promise.all([
    budget.check('ada', { org: 80, seat: 0 }),
    budget.check('ada', { org: 81, seat: 0 }),
  ]);
  t.match(a, { used: 80 });
  t.equal(b, null);
  t.equal(reads, 1, 'two checks at once share one read');
});

t.test('on JetStream, a record one node stores counts in another node’s check', async (t) => {
  const server = await startNatsServer({ t });
  const connect = async (): Promise<Bus> => {
    const bus = await openBus({ type: 'jetstream', url: server.url });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    return bus;
  };
  const [a, b] = [await connect(), await connect()];
  const now = Date.now();
  const stamp = new Date(now).toISOString();
  await store(a, spend('ada', 60, stamp));
  const onB = createBudget({ bus: b, timezone: () => 'UTC', now: () => now });
  t.teardown(() => onB.stop());
  t.match(
    await onB.check('ada', { org: 0, seat: 60 }),
    { scope: 'seat', used: 60 },
    'read at the first check',
  );
  await store(a, spend('ada', 40, stamp));
  await until(
    () => onB.check('ada', { org: 100, seat: 0 }),
    (over) => over !== null,
    BOUND,
  );
  t.match(
    await onB.check('ada', { org: 100, seat: 0 }),
    { scope: 'org', used: 100 },
    'and followed after it',
  );
});
