/**
 * The scheduler duty fences itself as a seat does (DESIGN.md "A lease holder fences itself"): a holder
 * that cannot prove its lease gives the duty up by its own monotonic clock before the lease can expire
 * for its peers, and a holder resumed from a pause past the lease claims no firing, even with its timers
 * all due at once. Two scheduler hosts on one memory bus stand for two nodes.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { readDuty, SCHEDULER_DUTY, startScheduler } from '../../actors/index.js';
import type { Kv } from '../../bus/index.js';
import { aSchedule } from '../fixtures/schedules/schedule.js';
import { ManualClock } from '../harness/manual-clock.js';
import { brief, ledger, schedulerBus, silent } from './fixtures/scheduler-bus.js';

/** A logger whose lines a test can wait for. */
function recording(): { logger: pino.Logger; next(match: (msg: string) => boolean): Promise<unknown> } {
  const lines: { msg: string }[] = [];
  const waiters: { match: (msg: string) => boolean; resolve: (line: unknown) => void }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      const line = JSON.parse(chunk.toString()) as { msg: string };
      lines.push(line);
      for (const w of waiters.filter((w) => w.match(line.msg))) w.resolve(line);
      done();
    },
  });
  return {
    logger: pino({ level: 'info' }, stream),
    next: (match) =>
      new Promise((resolve, reject) => {
        const seen = lines.find((l) => match(l.msg));
        if (seen) return resolve(seen);
        const timer = setTimeout(() => reject(new Error('no such log line within 10 s')), 10_000);
        waiters.push({
          match,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      }),
  };
}

/** The store as one node reaches it: `cut()` makes every renewal hang until `heal()`. */
function renewalsGate(kv: Kv): { kv: Kv; cut(): void; heal(): void } {
  let gate: Promise<void> | null = null;
  let open = (): void => undefined;
  return {
    kv: {
      ...kv,
      name: kv.name,
      get: (key) => kv.get(key),
      create: (key, value) => kv.create(key, value),
      put: (key, value) => kv.put(key, value),
      delete: (key, opts) => kv.delete(key, opts),
      keys: (filter) => kv.keys(filter),
      history: (key) => kv.history(key),
      watch: (onEntry, opts) => kv.watch(onEntry, opts),
      update: async (key, value, revision) => {
        if (gate) await gate;
        return kv.update(key, value, revision);
      },
    },
    cut: () => {
      gate ??= new Promise<void>((resolve) => (open = resolve));
    },
    heal: () => {
      gate = null;
      open();
    },
  };
}

// The hosts' timers do not hold the process open (a node's listener does): this test's wait does.
const keepAlive = setInterval(() => undefined, 60_000);
t.teardown(() => clearInterval(keepAlive));

t.test('a holder whose renewals hang gives the duty up before a peer may take it', async (t) => {
  const { bus, coord, claims } = await schedulerBus(t);
  const a = renewalsGate(coord);
  const log = recording();
  const lease = { leaseTtlMs: 900, renewEveryMs: 300, fenceMarginMs: 150 };
  const hostA = startScheduler({ bus, coord: a.kv, claims, nodeId: 'node-a', logger: log.logger, ...lease });
  await hostA.plan([aSchedule()]);
  t.equal(hostA.holding(), true);

  a.cut();
  const cutAt = Date.now();
  const last = await readDuty(coord, SCHEDULER_DUTY);
  await log.next((msg) => msg.startsWith('scheduler duty fenced'));
  const fencedAt = Date.now();
  t.equal(hostA.holding(), false, 'the fenced node no longer holds the duty');
  t.ok(
    fencedAt < new Date(last!.expires_at).getTime(),
    `fenced ${fencedAt - cutAt} ms after the cut, before the lease binding peers expired`,
  );

  const hostB = startScheduler({ bus, coord, claims, nodeId: 'node-b', logger: silent, ...lease });
  t.teardown(() => hostB.stop());
  await hostB.plan([aSchedule()]);
  const taken = await new Promise<boolean>((resolve) => {
    const poll = setInterval(() => {
      if (hostB.holding()) {
        clearInterval(poll);
        resolve(true);
      }
    }, 20);
  });
  t.ok(taken, 'the peer takes the duty once it expired');
  t.ok((await readDuty(coord, SCHEDULER_DUTY))!.epoch > last!.epoch, 'under a newer epoch');

  // The link comes back: the old holder's hung renewal proves nothing.
  a.heal();
  await hostA.settled();
  t.equal(hostA.holding(), false);
  t.equal(hostB.holding(), true);
  await hostA.stop();
});

t.test('a holder resumed from a pause past the lease claims no firing, its peer fires it once', async (t) => {
  const { bus, coord, claims } = await schedulerBus(t);
  const clockA = new ManualClock('2026-01-01T11:59:55Z');
  const clockB = new ManualClock('2026-01-01T11:59:55Z');
  // A's monotonic clock: its wall clock until the pause, which it skips over at once.
  let paused = 0;
  const claimsA: Kv = {
    ...claims,
    name: claims.name,
    get: (key) => claims.get(key),
    put: (key, value) => claims.put(key, value),
    update: (key, value, revision) => claims.update(key, value, revision),
    delete: (key, opts) => claims.delete(key, opts),
    keys: (filter) => claims.keys(filter),
    history: (key) => claims.history(key),
    watch: (onEntry, opts) => claims.watch(onEntry, opts),
    create: (key, value) => {
      claimedByA.push(key);
      return claims.create(key, value);
    },
  };
  const claimedByA: string[] = [];
  const log = recording();
  const hostA = startScheduler({
    bus,
    coord,
    claims: claimsA,
    nodeId: 'node-a',
    logger: log.logger,
    clock: clockA,
    monotonic: () => clockA.now().getTime() + paused,
  });
  const hostB = startScheduler({ bus, coord, claims, nodeId: 'node-b', logger: silent, clock: clockB });
  t.teardown(() => hostB.stop());
  t.teardown(() => hostA.stop());
  const schedules = [aSchedule({ catchup: true })];
  await hostA.plan(schedules);
  await hostB.plan(schedules);
  t.same([hostA.holding(), hostB.holding()], [true, false]);

  // A is stopped (SIGSTOP) at 11:59:55; B takes the expired lease and catches up 12:00.
  await clockB.advanceTo('2026-01-01T12:00:26Z');
  t.equal(hostB.holding(), true);
  // SIGCONT at 12:00:35: the 12:00 tick, the renewal and the fence are all due at once; the tick runs first.
  paused = 35_000;
  t.equal(hostA.holding(), false, 'the synchronous check refuses before any timer ran');
  await clockA.advanceTo('2026-01-01T12:00:00Z');
  await hostA.settled();
  await log.next((msg) => msg.startsWith('scheduler duty fenced'));
  t.same(claimedByA, [], 'the resumed node claims nothing');
  t.same(
    brief(await ledger(bus)),
    ['hourly alice 12:00 fired', 'hourly bob 12:00 fired'],
    'fired once, by B',
  );
  t.match(await readDuty(coord, SCHEDULER_DUTY), { node: 'node-b', epoch: 2 });
});

t.test('a fence margin that leaves no room for a renewal is refused', async (t) => {
  const { bus, coord, claims } = await schedulerBus(t);
  t.throws(
    () =>
      startScheduler({
        bus,
        coord,
        claims,
        nodeId: 'n',
        logger: silent,
        leaseTtlMs: 900,
        renewEveryMs: 600,
        fenceMarginMs: 400,
      }),
    RangeError,
  );
});
