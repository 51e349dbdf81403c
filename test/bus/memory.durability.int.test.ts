import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { EngineUnavailableError, KvConflictError } from '../../bus/index.js';
import { openMemoryBus } from '../../bus/memory/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const enc = new TextEncoder();
const dec = new TextDecoder();
const tempDir = (t: Test): string => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-membus-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

t.test('a SIGKILL mid-publish loses no acknowledged message or KV write; sequences continue', async (t) => {
  const dir = tempDir(t);
  const child = spawn(process.execPath, [join(here, 'fixtures', 'crash-writer.mjs'), dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const acked = new Map<number, string>();
  const kvAcked: Array<{ key: string; rev: number; value: string }> = [];
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const [kind, a, b, c] = line.split(' ');
    if (kind === 'P') acked.set(Number(a), b as string);
    if (kind === 'K') kvAcked.push({ key: a as string, rev: Number(b), value: c as string });
    if (acked.size >= 3000 && kvAcked.length >= 50) {
      child.kill('SIGKILL');
      break;
    }
  }
  await once(child, 'exit');
  t.equal(child.signalCode, 'SIGKILL');

  const bus = await openMemoryBus({ storeDir: dir });
  t.teardown(() => bus.close());
  const lost: number[] = [];
  for (const [seq, body] of acked) {
    const msg = await bus.getMessage('CRASH', seq);
    if (!msg || dec.decode(msg.data) !== body) lost.push(seq);
  }
  t.same(lost, [], `all ${acked.size} acknowledged publishes are present`);
  const kv = await bus.kv({ name: 'crashkv', history: 8 });
  for (const key of new Set(kvAcked.map((k) => k.key))) {
    const last = kvAcked.filter((k) => k.key === key).at(-1)!;
    const now = await kv.get(key);
    t.ok(now && now.revision >= last.rev, `${key} holds its last acknowledged revision or a later one`);
  }
  const info = await bus.streamInfo('CRASH');
  const maxAcked = Math.max(...acked.keys());
  t.ok(info.lastSeq >= maxAcked);
  t.equal(
    (await bus.publish('crash.m', enc.encode('after'))).seq,
    info.lastSeq + 1,
    'the sequence continues',
  );
});

t.test('200 trials of 8 concurrent updates on one revision: exactly one winner each', async (t) => {
  const bus = await openMemoryBus({ storeDir: tempDir(t) });
  t.teardown(() => bus.close());
  const kv = await bus.kv({ name: 'race', history: 64 });
  let bad = 0;
  for (let trial = 0; trial < 200; trial += 1) {
    const key = `k${trial}`;
    const base = await kv.create(key, enc.encode('base'));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, w) => kv.update(key, enc.encode(`w${w}`), base)),
    );
    const winners = outcomes.filter((o) => o.status === 'fulfilled');
    const losersTyped = outcomes.every(
      (o) => o.status === 'fulfilled' || o.reason instanceof KvConflictError,
    );
    const got = await kv.get(key);
    const winner = outcomes.findIndex((o) => o.status === 'fulfilled');
    if (winners.length !== 1 || !losersTyped || !got || dec.decode(got.value) !== `w${winner}`) bad += 1;
  }
  t.equal(bad, 0, 'every trial had one winner and get agreed with it');
});

t.test('a corrupt store file is refused with an error naming the file', async (t) => {
  const dir = tempDir(t);
  writeFileSync(
    join(dir, 'bus.sqlite'),
    'this is not a database, just some bytes that are long enough '.repeat(100),
  );
  const error = await openMemoryBus({ storeDir: dir }).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(error, EngineUnavailableError);
  t.match((error as Error).message, join(dir, 'bus.sqlite'));
  t.match((error as Error).message, /cannot be used/);
});

t.test('a store already open is refused, and a lock left by a dead process is taken over', async (t) => {
  const dir = tempDir(t);
  const first = await openMemoryBus({ storeDir: dir });
  await t.rejects(openMemoryBus({ storeDir: dir }), {
    name: 'EngineUnavailableError',
    message: /in use by process/,
  });
  await first.close();
  writeFileSync(join(dir, 'bus.lock'), '999999999');
  const second = await openMemoryBus({ storeDir: dir });
  await second.close();
});
