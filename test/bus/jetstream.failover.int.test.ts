/**
 * Failover on a 3-server cluster with R3 streams: kill -9 of the server leading a stream. Every kind of
 * follower (ordered follow, durable consumer, KV watch) notices that the server behind its consumer is
 * gone and resumes from its last sequence once the groups it needs have leaders again (the stream's, the
 * durable consumer's, the metadata group's) — within 5 s of that — and
 * publishes succeed again. Nothing acknowledged is lost or delivered out of order. And the engine's link
 * state (`linked`, `onLinkChange`) follows its connection.
 */
import { pino } from 'pino';
import t from 'tap';
import type { Bus, KvEntry, StoredMessage } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';
import { startNatsCluster, startNatsServer } from '../harness/nats-server.js';
import { leadersElected, streamLeader } from '../harness/stream-leader.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Publishes until acknowledged (the same msgId makes retries one record); returns when it landed. */
async function publishUntilAcked(bus: Bus, subject: string, body: string, budgetMs: number): Promise<number> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    try {
      return (await bus.publish(subject, enc.encode(body), { msgId: body })).seq;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

/** Resolves once `test` holds over `seen`, checked on every push. */
function collector<T>() {
  const seen: T[] = [];
  const waiters: Array<{ test: (all: T[]) => boolean; wake: () => void }> = [];
  return {
    seen,
    push(item: T) {
      seen.push(item);
      for (const w of [...waiters])
        if (w.test(seen)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.wake();
        }
    },
    until(test: (all: T[]) => boolean, timeoutMs: number): Promise<boolean> {
      if (test(seen)) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        waiters.push({
          test,
          wake: () => {
            clearTimeout(timer);
            resolve(true);
          },
        });
      });
    },
  };
}

t.test(
  'kill -9 of the stream leader: follow, consume and KV watch resume within 5 s of the new leader',
  async (t) => {
    const cluster = await startNatsCluster(3, { t });
    // The client is told every server, as an operator's url list would.
    const bus = await openJetStreamBus({
      url: cluster.urls.join(','),
      replicas: 3,
      ...(process.env['FO_DEBUG'] ? { logger: pino({ level: 'debug' }, pino.destination(2)) } : {}),
    });
    t.teardown(() => bus.close());
    await bus.ensureStream({ name: 'FO', subjects: ['fo.>'] });
    const kv = await bus.kv({ name: 'fo_coord' });
    for (let i = 1; i <= 20; i += 1) await bus.publish('fo.a', enc.encode(`m${i}`), { msgId: `m${i}` });
    await kv.put('k', enc.encode('v0'));

    const followed = collector<StoredMessage>();
    const follower = await bus.follow('FO', { fromSeq: 1 }, (m) => followed.push(m));
    const consumed = collector<string>();
    const consumer = await bus.consume('FO', { durable: 'fo-worker', ackWaitMs: 3_000 }, async (m) => {
      consumed.push(dec.decode(m.data));
    });
    const watched = collector<KvEntry>();
    const watch = await kv.watch((e) => watched.push(e), { key: 'k' });
    t.ok(await followed.until((s) => s.length === 20, 10_000), 'the follower read the history');
    t.ok(await consumed.until((s) => s.length === 20, 10_000), 'the consumer read the history');
    t.ok(await watched.until((s) => s.length === 1, 10_000), 'the watch saw the value');

    const leader = await streamLeader(cluster.urls, 'FO', [0, 1, 2]);
    const kvLeader = await streamLeader(cluster.urls, 'KV_fo_coord', [0, 1, 2]);
    const victim = leader;
    const alive = [0, 1, 2].filter((i) => i !== victim);
    const killedAt = Date.now();
    process.kill(cluster.servers[victim]!.pid, 'SIGKILL');
    t.comment(`killed n${victim + 1} (FO leader; kv leader n${kvLeader + 1})`);
    const newLeader = await streamLeader(cluster.urls, 'FO', alive);
    t.comment(`new leader n${newLeader + 1} after ${Date.now() - killedAt} ms`);
    // A follower can resume once every group it needs has a leader again: its stream takes a new consumer
    // (the metadata group's leader and the stream's, the KV bucket's too) and the durable has its own.
    await leadersElected(cluster.urls, alive, {
      streams: ['FO', 'KV_fo_coord'],
      consumers: [['FO', 'fo-worker']],
    });
    const electedAt = Date.now();
    t.comment(`every group led again after ${electedAt - killedAt} ms`);

    // Writes go through again, and every follower sees them within 5 s of the new leader.
    await publishUntilAcked(bus, 'fo.a', 'after', 15_000);
    const wroteAt = Date.now();
    t.ok(
      wroteAt - electedAt < 5_000,
      `a publish is acknowledged ${wroteAt - electedAt} ms after the election`,
    );
    await kv.put('k', enc.encode('v1'));
    const budget = Math.max(1_000, 5_000 - (Date.now() - electedAt));
    const [f, c, w] = await Promise.all([
      followed.until((s) => s.some((m) => dec.decode(m.data) === 'after'), budget),
      consumed.until((s) => s.includes('after'), budget),
      watched.until((s) => s.some((e) => dec.decode(e.value) === 'v1'), budget),
    ]);
    t.comment(`resumed ${Date.now() - electedAt} ms after the election`);
    t.ok(f, 'the follower resumed');
    t.ok(c, 'the durable consumer resumed');
    t.ok(w, 'the KV watch resumed');
    const seqs = followed.seen.map((m) => m.seq);
    t.same(
      seqs,
      [...new Set(seqs)].sort((a, b) => a - b),
      'the follower saw each message once, in order',
    );
    t.equal(followed.seen.length, 21, 'and nothing was skipped');
    await follower.stop();
    await consumer.stop();
    await watch.stop();
  },
);

t.test(
  'the link state follows the connection: unlinked while the server is down, linked once back',
  async (t) => {
    const server = await startNatsServer({ t });
    const bus = await openJetStreamBus({ url: server.url });
    t.teardown(() => bus.close());
    const changes = collector<boolean>();
    const unsubscribe = bus.onLinkChange((linked) => changes.push(linked));
    t.equal(bus.linked(), true, 'linked once open');
    await server.restart('SIGKILL');
    t.ok(await changes.until((s) => s.includes(false), 10_000), 'told when the link went');
    t.ok(await changes.until((s) => s.at(-1) === true, 20_000), 'told when it came back');
    t.equal(bus.linked(), true);
    t.same(changes.seen, [false, true], 'one change each way');
    unsubscribe();
    await bus.close();
    t.equal(bus.linked(), false, 'a closed bus is not linked');
  },
);

t.test('the in-process engine is always linked while open', async (t) => {
  const bus = await openMemoryBus();
  t.equal(bus.linked(), true);
  bus.onLinkChange(() => t.fail('the in-process engine never changes link'))();
  await bus.close();
  t.equal(bus.linked(), false);
});
