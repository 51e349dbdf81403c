/**
 * nats-server 2.9 issue #4320: on an R3 bucket, racing updates with the same expected revision can all
 * pass the server's check. Log-order arbitration must still give exactly one winner, and every node's
 * readers must agree on it. Writers use separate connections spread over the three nodes.
 */
import t, { type Test } from 'tap';
import { KvConflictError, type Bus, type Kv } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsCluster } from '../harness/nats-server.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const bucket = 'race';
const trials = 200;

const cluster = await startNatsCluster(3, { t });
const buses: Bus[] = [];
t.teardown(() => Promise.all(buses.map((b) => b.close())));

async function open(i: number): Promise<Bus> {
  const bus = await openJetStreamBus({ url: cluster.urls[i % 3] as string, replicas: 3 });
  buses.push(bus);
  return bus;
}

const admin = await open(0);
await admin.kv({ name: bucket, history: 64 });
const writers: Kv[] = [];
for (let i = 0; i < 8; i += 1) writers.push(await (await open(i)).kv({ name: bucket, history: 64 }));
const readers: Kv[] = [];
for (let i = 0; i < 3; i += 1) readers.push(await (await open(i)).kv({ name: bucket, history: 64 }));

// A watcher on another node records every change it is told of: it must never report a loser.
const watched = new Map<string, number[]>();
const watcherKv = await (await open(2)).kv({ name: bucket, history: 64 });
const watcher = await watcherKv.watch(
  (e) => watched.set(e.key, [...(watched.get(e.key) ?? []), e.revision]),
  {
    initial: false,
  },
);
t.teardown(() => watcher.stop());

/** Resolves once the watcher has reported `revision` for `key` (or rejects after 10 s). */
async function watcherSaw(key: string, revision: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(watched.get(key) ?? []).includes(revision)) {
    if (Date.now() > deadline) throw new Error(`watcher never reported ${key}@${revision}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function race(t: Test, size: number): Promise<void> {
  let failures = 0;
  for (let trial = 0; trial < trials; trial += 1) {
    const key = `w${size}.${trial}`;
    const base = await (writers[trial % 8] as Kv).create(key, enc.encode('base'));
    const outcomes = await Promise.allSettled(
      writers.slice(0, size).map((kv, w) => kv.update(key, enc.encode(`w${w}`), base)),
    );
    const winners = outcomes.flatMap((o, w) => (o.status === 'fulfilled' ? [{ w, rev: o.value }] : []));
    const losersTyped = outcomes.every(
      (o) => o.status === 'fulfilled' || o.reason instanceof KvConflictError,
    );
    const seen = await Promise.all(readers.map((kv) => kv.get(key)));
    const winner = winners[0];
    const agreed =
      winner !== undefined &&
      seen.every((e) => e !== null && e.revision === winner.rev && dec.decode(e.value) === `w${winner.w}`);
    const history = (await (readers[trial % 3] as Kv).history(key)).map((e) => e.revision);
    if (winner) await watcherSaw(key, winner.rev);
    const reported = watched.get(key) ?? [];
    const clean =
      winner !== undefined &&
      history.join() === `${base},${winner.rev}` &&
      reported.join() === history.join();
    if (winners.length !== 1 || !losersTyped || !agreed || !clean) {
      failures += 1;
      t.fail(
        `trial ${trial}: ${winners.length} winners, readers saw ${seen.map((e) => e?.revision).join(',')}`,
        {
          outcomes: outcomes.map((o) => (o.status === 'fulfilled' ? o.value : String(o.reason))),
        },
      );
    }
  }
  t.equal(
    failures,
    0,
    `${trials} trials of ${size} racing updates: one winner each; every get, history and the watcher agree`,
  );
}

/** How many trials had more than one claim of the base revision stored (the server let a loser in). */
async function storedLosers(prefix: string): Promise<number> {
  const claims = new Map<string, number>();
  const bases = new Map<string, number>();
  for await (const msg of admin.replay(`KV_${bucket}`, { subject: `$KV.${bucket}.${prefix}` })) {
    if (msg.headers['Svc-Kv-Parent'] === '0') bases.set(msg.subject, msg.seq);
    else if (Number(msg.headers['Svc-Kv-Parent']) === bases.get(msg.subject)) {
      claims.set(msg.subject, (claims.get(msg.subject) ?? 0) + 1);
    }
  }
  return [...claims.values()].filter((n) => n > 1).length;
}

t.test('two racing updates of one revision on an R3 bucket: exactly one wins', async (t) => {
  await race(t, 2);
  t.comment(`trials where the server stored both claims: ${await storedLosers('w2.*')}`);
});

t.test('eight racing updates of one revision on an R3 bucket: exactly one wins', async (t) => {
  await race(t, 8);
  t.comment(`trials where the server stored more than one claim: ${await storedLosers('w8.*')}`);
});
