/**
 * A follower whose client loses its link and reconnects recreates its read at once, from the sequence after
 * the last one it delivered, rather than after three silent heartbeats: the server it reached may have died
 * with the consumer on it. Nothing is skipped or delivered twice.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startTcpProxy } from '../harness/tcp-proxy.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

t.test('a follower recreates its read as soon as its client reconnects, losing nothing', async (t) => {
  const server = await startNatsServer({ t });
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port }, { scheme: 'nats', t });
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const following = await openJetStreamBus({ url: proxy.url, logger: pino({ level: 'info' }, sink) });
  t.teardown(() => following.close());
  const publishing = await openJetStreamBus({ url: server.url });
  t.teardown(() => publishing.close());
  await publishing.ensureStream({ name: 'FOLLOWED', subjects: ['followed.>'] });

  const seen: string[] = [];
  const read = await following.follow('FOLLOWED', {}, (msg) => seen.push(dec.decode(msg.data)));
  t.teardown(() => read.stop());
  await publishing.publish('followed.a', enc.encode('m1'));
  await until('m1 delivered', () => seen.length === 1);

  proxy.cut();
  await until('the read recreated on reconnect', () =>
    lines.some((l) => l['stream'] === 'FOLLOWED' && l['why'] === 'reconnected'),
  );
  await publishing.publish('followed.a', enc.encode('m2'));
  await publishing.publish('followed.b', enc.encode('m3'));
  await until('m2 and m3 delivered', () => seen.length >= 3);
  t.same(seen, ['m1', 'm2', 'm3'], 'in order, none skipped or repeated');
  t.notOk(
    lines.some((l) => l['stream'] === 'FOLLOWED' && l['why'] === 'silent'),
    'not left to the silence watchdog',
  );
});
