/**
 * The run records' token lookup (what `/otlp/{token}` and `/mcp/{token}` ask): a live run's token finds
 * it on every node — the one that wrote it, one that follows the stream, one that replays it at start —
 * an ended run's token and a token of no run find nothing, and a lookup costs the same among thousands
 * of runs as among a few.
 */
import { createHash, randomBytes } from 'node:crypto';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { openSandboxRecords, type SandboxRecords } from '../../../actors/sandbox/index.js';
import { ensureCatalogue, openMemoryBus } from '../../../bus/index.js';
import type { SandboxRunRecord } from '../../../schema/index.js';
import { aRun } from './runs.fixture.js';

const logger = pino({ level: 'silent' });
const newToken = (): string => randomBytes(32).toString('base64url');
/** Only the token's sha-256 is stored (ops/sandboxes.md). */
const tokenDigest = (token: string): string => createHash('sha256').update(token).digest('hex');

const runOf = (id: string, token: string, status: SandboxRunRecord['status'] = 'running'): SandboxRunRecord =>
  aRun({
    sandbox_id: id,
    status,
    started_at: '2026-01-01T00:00:00.000Z',
    token_sha256: tokenDigest(token),
    // Now: an ended run is kept 30 days after its last move, then dropped (ops/sandboxes.md "Retention").
    updated_at: new Date().toISOString(),
  });

/** Resolves once `records` (a following node's) has seen `match`. */
const seen = (records: SandboxRecords, match: (run: SandboxRunRecord) => boolean): Promise<void> =>
  new Promise((resolve) => {
    if (records.all().some(match)) return resolve();
    const off = records.onChange((run) => {
      if (!match(run)) return;
      off();
      resolve();
    });
  });

async function openBus(tt: Test) {
  const bus = await openMemoryBus();
  await ensureCatalogue(bus);
  tt.teardown(() => bus.close());
  const open = async (node: string): Promise<SandboxRecords> => {
    const records = await openSandboxRecords({ bus, node, logger });
    tt.teardown(() => records.stop());
    return records;
  };
  return { open };
}

t.test(
  'a live run’s token finds it on every node; an ended run’s and an unknown one find nothing',
  async (tt) => {
    const { open } = await openBus(tt);
    const writer = await open('node-0');
    const follower = await open('node-1');
    const token = newToken();
    const other = newToken();
    await writer.put(runOf('sb-a', token));
    await writer.put(runOf('sb-b', other));
    await seen(follower, (r) => r.sandbox_id === 'sb-b');

    for (const [name, records] of [
      ['the writing node', writer],
      ['a following node', follower],
      ['a node that replays at start', await open('node-2')],
    ] as const) {
      tt.equal(records.byToken(token)?.sandbox_id, 'sb-a', `${name}: the run's token finds it`);
      tt.equal(records.byToken(other)?.sandbox_id, 'sb-b', `${name}: each token its own run`);
      tt.equal(records.byToken(newToken()), null, `${name}: a token of no run finds nothing`);
      tt.equal(records.byToken(''), null, `${name}: nor does an empty one`);
    }

    // The run ends: its token is refused from then on, wherever it is asked.
    await writer.put({ ...runOf('sb-a', token, 'cancelled'), error: 'cancelled by ops: stop' });
    await seen(follower, (r) => r.sandbox_id === 'sb-a' && r.status === 'cancelled');
    for (const [name, records] of [
      ['the writing node', writer],
      ['a following node', follower],
      ['a node that replays at start', await open('node-3')],
    ] as const) {
      tt.equal(records.byToken(token), null, `${name}: the ended run's token finds nothing`);
      tt.equal(records.get('sb-a')?.status, 'cancelled', `${name}: the run itself is still there`);
      tt.equal(records.byToken(other)?.sandbox_id, 'sb-b', `${name}: the other run's token still works`);
    }
  },
);

t.test('a token lookup among thousands of runs costs what one among a few does', async (tt) => {
  const { open } = await openBus(tt);
  const records = await open('node-0');
  const token = newToken();
  await records.put(runOf('sb-0', token));
  const lookups = (n: number): number => {
    const from = performance.now();
    for (let i = 0; i < n; i += 1) {
      records.byToken(token);
      records.byToken('x'.repeat(43));
    }
    return performance.now() - from;
  };
  lookups(500); // warm up
  const few = lookups(1_000);
  for (let i = 1; i < 4_000; i += 1) await records.put(runOf(`sb-${i}`, newToken()));
  const many = lookups(1_000);
  tt.equal(records.byToken(token)?.sandbox_id, 'sb-0');
  // A scan of every record would make this hundreds of times slower; the margin absorbs a busy machine.
  tt.ok(
    many < few * 5 + 100,
    `2000 lookups: ${few.toFixed(1)} ms among 1 run, ${many.toFixed(1)} ms among 4000`,
  );
});
