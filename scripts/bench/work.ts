/**
 * Work tracker benchmark, one run, memory engine:
 *   1. items created per second by `POST /work` to a `svc serve` child (BENCH_WORK_CREATES creates, default
 *      2,000, from BENCH_WORK_WRITERS concurrent senders, default 8, into one project), against the writer
 *      called directly in this process (decide, append with the expected last sequence, fold) the same way;
 *   2. `GET /work` latency (p99 of BENCH_WORK_QUERIES queries, default 200) on that node, newest page and a
 *      filtered page, against the listing function over the same number of items in this process;
 *   3. at scale (work-seeded.ts): BENCH_WORK_ITEMS create records (default 100,000) written into a store, a
 *      `svc serve` booted on it, and the p99 of the common reads over HTTP against the read functions; then
 *      the fold of purges of the oldest 80% of them, in process (a diagnostic).
 *
 * Run (from the repository root, after `npm run build`): node --import=tsx scripts/bench/work.ts [--json]
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { startWorkHost } from '../../actors/index.js';
import { ensureCatalogue, openMemoryBus } from '../../bus/index.js';
import { followWork } from '../../projections/index.js';
import {
  defaultFields,
  emptyWorkState,
  foldWork,
  listItems,
  projectsOf,
  seatKindsOf,
} from '../../schema/index.js';
import { auth, putCompany, quantile, startServe, type ServedNode } from './node.js';
import { listAll as base, seededFigures } from './work-seeded.js';
import { report, row, type BenchRow } from './table.js';

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const creates = env('BENCH_WORK_CREATES', 2_000);
const writers = env('BENCH_WORK_WRITERS', 8);
const items = env('BENCH_WORK_ITEMS', 100_000);
const queries = env('BENCH_WORK_QUERIES', 200);

const company = {
  name: 'Bench',
  units: [
    {
      name: 'Eng',
      type: 'team',
      integrations: { work: { project: 'ENG' } },
      roles: [{ name: 'Coder', handle: 'coder' }],
    },
  ],
};

const rows: BenchRow[] = [];

/** `creates` items by `writers` lanes through `create`; items per second. */
async function createLanes(create: (n: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < creates) {
        next += 1;
        await create(next);
      }
    }),
  );
  return creates / ((performance.now() - started) / 1000);
}

/** The baseline: the writer called in this process, as the node's `/work` route calls it. */
async function inProcessCreateRate(): Promise<number> {
  const logger = pino({ level: 'silent' });
  const bus = await openMemoryBus({});
  await ensureCatalogue(bus);
  const view = await followWork({ bus, logger });
  const context = { projects: projectsOf(company), seats: seatKindsOf(company) };
  const host = await startWorkHost({ bus, view, context: () => context, nodeId: 'bench', logger });
  try {
    return await createLanes(async (n) => {
      const reply = await host.write({
        op_id: randomUUID(),
        actor: 'bench',
        turn_id: null,
        change: { kind: 'create', project: 'ENG', fields: { title: `item ${n}` } },
      });
      if (reply.outcome !== 'ok') throw new Error(JSON.stringify(reply));
    });
  } finally {
    await host.stop();
    await view.stop();
    await bus.close();
  }
}

async function timed(times: number, run: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  return quantile(
    samples.sort((a, b) => a - b),
    0.99,
  );
}

async function nodeFigures(node: ServedNode): Promise<void> {
  const local = await inProcessCreateRate();
  await putCompany(node, company);
  const rate = await createLanes(async (n) => {
    const res = await fetch(`${node.url}/work`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'ENG', title: `item ${n}`, op_id: `bench-${n}` }),
    });
    if (res.status !== 201) throw new Error(`POST /work answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  });
  console.log(
    `creates: ${creates} by ${writers} writers, svc serve POST /work ${rate.toFixed(0)} items/s, writer in process ${local.toFixed(0)} items/s`,
  );
  rows.push(row('work', 'POST /work creates', rate, 'items/s', local));
  const state = folded(creates);
  for (const [name, path, query] of [
    ['newest page', 'limit=50', base],
    ['filtered page', 'project=ENG&group=active&assignee=coder&limit=50', filtered],
  ] as const) {
    const http = await timed(queries, async () => {
      const res = await fetch(`${node.url}/work?${path}`, { headers: auth });
      if (res.status !== 200) throw new Error(`GET /work answered ${res.status}`);
      await res.arrayBuffer();
    });
    const local = await timed(queries, () => listItems(state, query));
    console.log(
      `GET /work ${name} at ${creates} items: p99 ${http.toFixed(2)} ms; listing in process ${local.toFixed(2)} ms`,
    );
    rows.push(row('work', `GET /work ${name} p99, ${creates} items`, http, 'ms', local));
  }
}

const filtered = { ...base, project: 'ENG', groups: ['active'], assignee: 'coder' };

/** A state of `count` items folded from records, half in each of two projects. */
function folded(count: number): ReturnType<typeof emptyWorkState> {
  const state = emptyWorkState();
  const at = new Date().toISOString();
  for (let i = 1; i <= count; i++)
    foldWork(
      state,
      {
        kind: 'item.created',
        op_id: `op-${i}`,
        at,
        actor: 'bench',
        turn_id: null,
        id: `id-${i}`,
        project: i % 2 === 0 ? 'ENG' : 'OPS',
        key: `${i % 2 === 0 ? 'ENG' : 'OPS'}-${i}`,
        number: i,
        status: i % 3 === 0 ? 'in_progress' : 'backlog',
        fields: { ...defaultFields(), title: `item ${i}`, assignees: i % 10 === 0 ? ['coder'] : [] },
      },
      i,
    );
  return state;
}

const node = await startServe({ extra: ['tracker: {backend: native}'] });
try {
  await nodeFigures(node);
} finally {
  await node.stop();
}
await seededFigures(items, queries, rows);
report(rows);
