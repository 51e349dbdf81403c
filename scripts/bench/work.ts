/**
 * Work tracker benchmark (issue 20): on the memory engine, in one run
 *   1. items created per second through the writer (decide, append with the project's expected last
 *      sequence, fold), BENCH_WORK_CREATES creates (default 2,000) from BENCH_WORK_WRITERS concurrent
 *      senders (default 8) into one project;
 *   2. the `/work` listing's latency (p50/p99 of BENCH_WORK_QUERIES queries, default 200) over a state of
 *      BENCH_WORK_ITEMS items (default 100,000) folded from records, newest page and a filtered page.
 *
 * Run (from the repository root):
 *   TS_NODE_TRANSPILE_ONLY=1 node --import @isaacs/ts-node-temp-fork-for-pr-2009/import scripts/bench/work.ts
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { startWorkHost } from '../../actors/index.js';
import { ensureCatalogue, openMemoryBus } from '../../bus/index.js';
import { followWork, listItems } from '../../projections/index.js';
import { defaultFields, emptyWorkState, foldWork, projectsOf, seatKindsOf } from '../../schema/index.js';

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const creates = env('BENCH_WORK_CREATES', 2_000);
const writers = env('BENCH_WORK_WRITERS', 8);
const items = env('BENCH_WORK_ITEMS', 100_000);
const queries = env('BENCH_WORK_QUERIES', 200);

const company = {
  units: [
    {
      name: 'Eng',
      type: 'team',
      integrations: { work: { project: 'ENG' } },
      roles: [{ name: 'Coder', handle: 'coder' }],
    },
  ],
};

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function createRate(): Promise<void> {
  const logger = pino({ level: 'silent' });
  const bus = await openMemoryBus({});
  await ensureCatalogue(bus);
  const view = await followWork({ bus, logger });
  const context = { projects: projectsOf(company), seats: seatKindsOf(company) };
  const host = startWorkHost({ bus, view, context: () => context, nodeId: 'bench', logger });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < creates) {
        next += 1;
        const reply = await host.write({
          op_id: randomUUID(),
          actor: 'bench',
          turn_id: null,
          change: { kind: 'create', project: 'ENG', fields: { title: `item ${next}` } },
        });
        if (reply.outcome !== 'ok') throw new Error(JSON.stringify(reply));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `creates: ${creates} by ${writers} writers in ${seconds.toFixed(2)} s = ${(creates / seconds).toFixed(0)} items/s`,
  );
  console.log(`keys handed out: ${view.state().counters.get('ENG')} (expected ${creates})`);
  await host.stop();
  await view.stop();
  await bus.close();
}

function listingLatency(): void {
  const state = emptyWorkState();
  const at = new Date().toISOString();
  for (let i = 1; i <= items; i++)
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
  const base = {
    project: null,
    statuses: [],
    groups: [],
    assignee: null,
    type: null,
    priority: null,
    label: null,
    q: null,
    limit: 50,
    offset: 0,
  };
  for (const [name, query] of [
    ['newest page', base],
    ['project + group + assignee', { ...base, project: 'ENG', groups: ['active'], assignee: 'coder' }],
  ] as const) {
    const times: number[] = [];
    for (let i = 0; i < queries; i++) {
      const t0 = performance.now();
      listItems(state, query);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(
      `/work listing at ${items} items, ${name}: p50 ${quantile(times, 0.5).toFixed(2)} ms, p99 ${quantile(times, 0.99).toFixed(2)} ms`,
    );
  }
}

await createRate();
listingLatency();
