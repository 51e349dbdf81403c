/**
 * Bus backup and restore on both engines (ops/backups.md): a restored store holds the same messages at
 * the same sequences with the same headers, the same KV state and revisions (KV parents name sequences),
 * durable consumers resume past what they acknowledged, new writes continue the numbering, a damaged
 * copy is refused before anything is written, and a restore failing at its last step removes what it wrote.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import {
  BackupError,
  openBus,
  restoreBackup,
  type Bus,
  type OpenBusOptions,
  type StoredMessage,
} from '../../bus/index.js';
import type { BackupContents } from '../../schema/index.js';
import { startNatsServer } from '../harness/nats-server.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface Engine {
  /** A fresh, empty target: its bus options. */
  fresh(t: Test): Promise<OpenBusOptions>;
}

const engines: Record<string, Engine> = {
  memory: {
    fresh: async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-bk-store-'));
      t.teardown(() => rmSync(dir, { recursive: true, force: true }));
      return { type: 'memory', storeDir: join(dir, 'data') };
    },
  },
  jetstream: {
    fresh: async (t) => ({ type: 'jetstream', url: (await startNatsServer({ t })).url }),
  },
};

async function all(bus: Bus, stream: string): Promise<Array<Omit<StoredMessage, 'time'>>> {
  const out: Array<Omit<StoredMessage, 'time'>> = [];
  for await (const m of bus.replay(stream)) {
    out.push({ stream: m.stream, seq: m.seq, subject: m.subject, headers: { ...m.headers }, data: m.data });
  }
  return out;
}

/** Writes a small estate with gaps: a stream, a consumer part-way through it, a bucket of history 1. */
async function seed(bus: Bus): Promise<void> {
  await bus.ensureStream({ name: 'SVC_BK', subjects: ['bk.>'] });
  for (let i = 1; i <= 10; i += 1) {
    await bus.publish(`bk.${i % 2 === 0 ? 'even' : 'odd'}`, encoder.encode(`m${i}`), {
      headers: { n: String(i) },
    });
  }
  const kv = await bus.kv({ name: 'svc_bk', history: 1 });
  const first = await kv.create('a', encoder.encode('a1'));
  const second = await kv.update('a', encoder.encode('a2'), first);
  await kv.update('a', encoder.encode('a3'), second);
  await kv.put('b', encoder.encode('b1'));
  await kv.delete('b');
  await consumeUntil(bus, 4);
}

/** Runs durable `c1` on SVC_BK, acknowledging messages until it has seen sequence `until`; the first seen. */
/** A bus on `config`, seeded, backed up into a temporary directory, and closed. */
async function seededBackup(t: Test, config: Parameters<typeof openBus>[0]) {
  const bus = await openBus(config);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bk-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  try {
    await seed(bus);
    return { dir, contents: await bus.backup(dir) };
  } finally {
    await bus.close();
  }
}

async function consumeUntil(bus: Bus, until: number): Promise<number> {
  let firstSeen = 0;
  let done!: () => void;
  const reached = new Promise<void>((resolve) => (done = resolve));
  const sub = await bus.consume('SVC_BK', { durable: 'c1' }, async (m) => {
    if (firstSeen === 0) firstSeen = m.seq;
    if (m.seq >= until) done();
  });
  await reached;
  await sub.stop();
  return firstSeen;
}

for (const [name, engine] of Object.entries(engines)) {
  t.test(`${name}: a restored store holds the same sequences, KV state and consumer positions`, async (t) => {
    const source = await engine.fresh(t);
    const bus = await openBus(source);
    let contents: BackupContents;
    const dir = mkdtempSync(join(tmpdir(), 'svc-bk-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    let before: Awaited<ReturnType<typeof all>>;
    let kvBefore: Awaited<ReturnType<typeof all>>;
    let a: { value: string; revision: number };
    try {
      await seed(bus);
      before = await all(bus, 'SVC_BK');
      kvBefore = await all(bus, 'KV_svc_bk');
      const entry = await (await bus.kv({ name: 'svc_bk', history: 1 })).get('a');
      a = { value: decoder.decode(entry?.value), revision: entry?.revision ?? 0 };
      contents = await bus.backup(dir);
    } finally {
      await bus.close();
    }
    t.match(
      contents.streams.find((s) => s.name === 'SVC_BK'),
      { messages: 10, first_seq: 1, last_seq: 10 },
    );
    t.match(
      contents.streams.find((s) => s.name === 'KV_svc_bk'),
      { messages: 2, last_seq: 5 },
    );
    t.ok(
      contents.files.every((f) => /^[0-9a-f]{64}$/.test(f.sha256) && f.bytes > 0),
      'every file is described',
    );
    t.ok(kvBefore.length < 5, 'the bucket has gaps (superseded history) to restore around');

    const target = await engine.fresh(t);
    await restoreBackup(target, {
      from: dir,
      engine: name === 'memory' ? 'memory' : 'jetstream',
      files: contents.files,
      streams: contents.streams,
    });
    const restored = await openBus(target);
    try {
      t.same(await all(restored, 'SVC_BK'), before, 'same messages at the same sequences');
      t.same(await all(restored, 'KV_svc_bk'), kvBefore, 'same bucket records at the same sequences');
      const kv = await restored.kv({ name: 'svc_bk', history: 1 });
      const entry = await kv.get('a');
      t.same(
        { value: decoder.decode(entry?.value), revision: entry?.revision },
        a,
        'same value and revision',
      );
      t.equal(await kv.get('b'), null, 'a deleted key stays deleted');
      // A conditional write on the restored revision wins: arbitration reads the same parents.
      t.ok((await kv.update('a', encoder.encode('a4'), a.revision)) > a.revision);
      t.equal((await restored.publish('bk.odd', encoder.encode('m11'))).seq, 11, 'numbering continues');
      t.equal(await consumeUntil(restored, 11), 5, 'the durable consumer resumes after what it acknowledged');
    } finally {
      await restored.close();
    }

    // A restore never merges: the target now holds data.
    await t.rejects(
      restoreBackup(target, {
        from: dir,
        engine: name === 'memory' ? 'memory' : 'jetstream',
        files: contents.files,
        streams: contents.streams,
      }),
      BackupError,
    );
  });
}

for (const [name, engine] of Object.entries(engines)) {
  t.test(`${name}: a restore whose last step fails removes what it wrote, so a retry succeeds`, async (t) => {
    const { dir, contents } = await seededBackup(t, await engine.fresh(t));
    const target = await engine.fresh(t);
    const source = {
      from: dir,
      engine: name === 'memory' ? 'memory' : 'jetstream',
      files: contents.files,
      streams: contents.streams,
    } as const;
    await t.rejects(
      restoreBackup(target, source, async () => {
        throw new Error('the last step failed');
      }),
      { message: 'the last step failed' },
      "the failure is the caller's, unchanged",
    );
    if (target.storeDir) t.notOk(existsSync(target.storeDir), 'the store directory the restore made is gone');
    await restoreBackup(target, source);
    const restored = await openBus(target);
    try {
      t.equal((await all(restored, 'SVC_BK')).length, 10, 'the retry restored every message');
    } finally {
      await restored.close();
    }
  });
}

t.test('a damaged copy is refused before anything is written', async (t) => {
  const { dir, contents } = await seededBackup(t, await engines['memory']!.fresh(t));
  appendFileSync(join(dir, 'bus.sqlite'), 'x');
  const target = await engines['memory']!.fresh(t);
  await t.rejects(
    restoreBackup(target, { from: dir, engine: 'memory', files: contents.files, streams: contents.streams }),
    {
      name: 'BackupError',
      message: /does not match the manifest/,
    },
  );
  mkdirSync(target.storeDir!, { recursive: true });
  t.same(readdirSync(target.storeDir!), [], 'nothing was written into the store');
  await t.rejects(
    restoreBackup(
      { type: 'jetstream', url: 'nats://127.0.0.1:1' },
      { from: dir, engine: 'memory', files: contents.files, streams: contents.streams },
    ),
    {
      message: /cannot be restored into/,
    },
  );
});
