/**
 * Fuzzing what a running `svc serve` applies: generated edits of a rich company document (the example's
 * providers, turn engine and learning settings, integrations, budgets, seats in nested units, schedules)
 * sent with `PUT /config`. A refused document gets a coded 4xx; an accepted one is applied by the node's
 * actors (seats, schedules, integrations, notify), and the node must reach its epoch without going `stuck`,
 * log no error, and keep answering. `FUZZ_RUNS` sets the number of cases (default 1500, a fifteenth here:
 * each accepted document is applied before the next is sent).
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { root } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mutated, type Json } from '../fixtures/json-mutations.js';

const runs = Math.ceil(Number(process.env['FUZZ_RUNS'] ?? 1500) / 15);
const seed = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : undefined;
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'fuzz' };

/** The example company without what would start processes on this machine (its stdio tool server). */
function base(): Json {
  const doc = parse(readFileSync(join(root, 'ops', 'company.example.yaml'), 'utf8')) as Record<string, Json>;
  delete doc['mcp_servers'];
  return doc;
}

interface Health {
  readonly status?: string;
  readonly applied_epoch?: number;
}

t.test('generated company documents are refused with a code or applied without an error', async (t) => {
  const node = await startNode(t);
  const health = async (): Promise<Health> => (await (await fetch(`${node.url}/health`)).json()) as Health;
  const start = base();
  const first = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify(start),
  });
  t.equal(first.status, 201, 'the example company is stored');
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(mutated(start, 4), async (doc) => {
      const res = await fetch(`${node.url}/config`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify(doc),
      });
      const body = (await res.json()) as { error?: string; epoch?: number };
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
      if (res.status >= 500) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
      if (res.status >= 400) {
        if (typeof body.error !== 'string') throw new Error(`uncoded ${res.status}: ${JSON.stringify(body)}`);
        return;
      }
      // Accepted: the node applies it; the epoch is reached and the node is not stuck on it.
      const epoch = body.epoch ?? 0;
      const reached = await until(health, (h) => (h.applied_epoch ?? 0) >= epoch || h.status === 'stuck');
      if (reached.status === 'stuck') throw new Error(`stuck applying ${JSON.stringify(doc).slice(0, 500)}`);
    }),
    { numRuns: runs, ...(seed !== undefined ? { seed } : {}), endOnFailure: true },
  );
  t.comment(`statuses: ${[...seen].map(([s, n]) => `${s}×${n}`).join(' ')}`);
  t.ok((seen.get(200) ?? 0) + (seen.get(201) ?? 0) > 0, 'some edits were accepted and applied');
  const errors = node.run.lines.filter((l) => typeof l['level'] === 'number' && l['level'] >= 50);
  t.same(
    errors.map(
      (l) => `${JSON.stringify(l['event'] ?? l['msg'])}: ${JSON.stringify(l['err'] ?? null).slice(0, 300)}`,
    ),
    [],
    'the node logged no error',
  );
  t.equal((await fetch(`${node.url}/health`)).status, 200, 'the node still answers');
  t.equal(node.run.child.exitCode, null, 'and never exited');
});
