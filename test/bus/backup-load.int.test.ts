/**
 * A backup taken while writes keep arriving (ops/backups.md "Consistency"), on both engines: every write
 * acknowledged before the backup began is in the restored store at its sequence, the restored stream is
 * exactly the source's prefix up to the manifest's last sequence (no hole a write left, nothing past it),
 * a bucket written under load restores its values, and the restored store opens, replays and takes writes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openBus, restoreBackup, type Bus, type OpenBusOptions } from '../../bus/index.js';
import { startNatsServer } from '../harness/nats-server.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const engines: Record<string, (t: Test) => Promise<OpenBusOptions>> = {
  memory: async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bkload-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    return { type: 'memory', storeDir: join(dir, 'data') };
  },
  jetstream: async (t) => ({ type: 'jetstream', url: (await startNatsServer({ t })).url }),
};

async function payloads(bus: Bus, stream: string): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for await (const m of bus.replay(stream)) out.set(m.seq, decoder.decode(m.data));
  return out;
}

for (const [name, fresh] of Object.entries(engines)) {
  t.test(`${name}: a backup under write load restores every write acknowledged before it`, async (t) => {
    const bus = await openBus(await fresh(t));
    const dir = mkdtempSync(join(tmpdir(), 'svc-bkload-out-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    await bus.ensureStream({ name: 'SVC_LOAD', subjects: ['load.>'] });
    const kv = await bus.kv({ name: 'svc_load', history: 1 });
    const acked = new Map<number, string>();
    let n = 0;
    let stop = false;
    // Four writers: each publish and bucket put waits for its acknowledgement, as the node's writers do.
    const writer = async (w: number): Promise<void> => {
      while (!stop && n < 20_000) {
        n += 1;
        const body = `w${w}-${n}`;
        const { seq } = await bus.publish(`load.w${w}`, encoder.encode(body));
        acked.set(seq, body);
        await kv.put(`k${w}`, encoder.encode(body));
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    // Let the load build before the backup begins; the writers keep going through it.
    while (acked.size < 400) await new Promise((resolve) => setImmediate(resolve));
    const before = new Map(acked);
    const contents = await bus.backup(dir);
    const during = acked.size;
    stop = true;
    await Promise.all(writers);
    const source = await payloads(bus, 'SVC_LOAD');
    await bus.close();
    t.ok(during > before.size, `writes landed while the backup ran (${during - before.size})`);

    const point = contents.streams.find((s) => s.name === 'SVC_LOAD');
    t.ok(point, 'the stream is in the manifest');
    const last = point?.last_seq ?? 0;
    const target = await fresh(t);
    await restoreBackup(target, {
      from: dir,
      engine: name === 'memory' ? 'memory' : 'jetstream',
      files: contents.files,
      streams: contents.streams,
    });
    const restored = await openBus(target);
    try {
      const got = await payloads(restored, 'SVC_LOAD');
      const missing = [...before].filter(([seq, body]) => got.get(seq) !== body);
      t.same(missing, [], 'every write acknowledged before the backup began is restored at its sequence');
      const prefix = [...source].filter(([seq]) => seq <= last);
      t.same([...got], prefix, 'the restored stream is the source up to the backup point, nothing more');
      t.equal(point?.messages, got.size, "the manifest counts the restored stream's messages");
      const rkv = await restored.kv({ name: 'svc_load', history: 1 });
      for (const w of [0, 1, 2, 3]) {
        const value = decoder.decode((await rkv.get(`k${w}`))?.value);
        t.match(value, new RegExp(`^w${w}-\\d+$`), `bucket key k${w} restored`);
      }
      t.equal(
        (await restored.publish('load.after', encoder.encode('x'))).seq,
        last + 1,
        'numbering continues',
      );
    } finally {
      await restored.close();
    }
  });
}
