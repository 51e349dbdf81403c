import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { openMemoryBus } from '../../bus/memory/index.js';
import { startWriter } from './fixtures/writer.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

interface Round {
  /** Last sequence of the stream when the writer started. */
  readonly startedAt: number;
  readonly published: Map<number, string>;
  readonly kv: Array<{ key: string; rev: number; value: string }>;
}

/** Runs the writer until `killAfter` acknowledgements arrived, SIGKILLs it, and keeps every line it printed. */
async function runAndKill(dir: string, killAfter: number): Promise<Round & { signal: string | null }> {
  const child = startWriter(dir);
  const exited = once(child, 'exit');
  let startedAt = -1;
  const published = new Map<number, string>();
  const kv: Round['kv'] = [];
  try {
    for await (const line of createInterface({ input: child.stdout })) {
      const [kind, a, b, c] = line.split(' ');
      if (kind === 'ready') startedAt = Number(a);
      if (kind === 'P') published.set(Number(a), b as string);
      if (kind === 'K') kv.push({ key: a as string, rev: Number(b), value: c as string });
      // Kill once, mid-loop, then read on: lines already printed were acknowledged too.
      if (published.size + kv.length >= killAfter && child.signalCode === null) child.kill('SIGKILL');
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await exited;
  return { startedAt, published, kv, signal: child.signalCode };
}

t.test('a writer SIGKILLed mid-loop loses no acknowledged publish or KV write, twice over', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-membus-crash-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  const first = await runAndKill(dir, 2_000 + Math.floor(Math.random() * 2_000));
  t.equal(first.signal, 'SIGKILL', 'the first writer was killed');
  t.equal(first.startedAt, 0, 'the first writer started on an empty store');
  const firstMax = Math.max(...first.published.keys());

  // 2. A second writer on the same store takes over the dead writer's lock and continues its sequence.
  const second = await runAndKill(dir, 1_000 + Math.floor(Math.random() * 2_000));
  t.equal(second.signal, 'SIGKILL', 'the second writer was killed');
  t.ok(second.startedAt >= firstMax, 'the restarted writer found every acknowledged publish');
  t.ok(
    [...second.published.keys()].every((seq) => seq > second.startedAt),
    'the restarted writer never reused a sequence',
  );

  // 3. Everything either writer was told is stored, is there.
  const bus = await openMemoryBus({ storeDir: dir });
  t.teardown(() => bus.close());
  const published = new Map([...first.published, ...second.published]);
  const lost: number[] = [];
  for (const [seq, body] of published) {
    const msg = await bus.getMessage('CRASH', seq);
    if (!msg || dec.decode(msg.data) !== body) lost.push(seq);
  }
  t.same(lost, [], `all ${published.size} acknowledged publishes are present with their bodies`);

  const kv = await bus.kv({ name: 'crashkv', history: 4 });
  const writes = [...first.kv, ...second.kv];
  const fresh = writes.filter((w) => w.key !== 'shared');
  const missing: string[] = [];
  for (const w of fresh) {
    const got = await kv.get(w.key);
    if (!got || got.revision !== w.rev || dec.decode(got.value) !== w.value) missing.push(w.key);
  }
  t.same(missing, [], `all ${fresh.length} acknowledged writes of fresh keys are present at their revision`);
  const lastShared = writes.filter((w) => w.key === 'shared').at(-1);
  const shared = await kv.get('shared');
  t.ok(
    lastShared && shared && shared.revision >= lastShared.rev,
    'the shared key holds its last write or a later one',
  );

  // 4. Sequences and revisions continue past everything acknowledged.
  const info = await bus.streamInfo('CRASH');
  t.ok(info.lastSeq >= Math.max(...published.keys()));
  t.equal(
    (await bus.publish('crash.m', enc.encode('after'))).seq,
    info.lastSeq + 1,
    'the sequence continues',
  );
  const maxRev = Math.max(...writes.map((w) => w.rev));
  t.ok((await kv.put('after', enc.encode('x'))) > maxRev, 'KV revisions continue');
});
