/**
 * The work tracker at scale, over HTTP: BENCH_WORK_ITEMS create records (default 100,000; the shape the
 * writer appends, on each project's subject) written straight into a memory-engine store, then a
 * `svc serve` started on that store. Reports the boot to ready, the node's RSS, and the p99 of the common
 * reads (`GET /work` newest, filtered, by text; `/work/my-work` and `/work/inbox` of a person with many
 * items), each against the read function over the same records folded in this process; then, in process,
 * the fold of purges of the oldest 80% of the items.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCatalogue, openMemoryBus, Subjects } from '../../bus/index.js';
import { inboxPage, myWork } from '../../projections/index.js';
import {
  defaultFields,
  emptyWorkState,
  foldWork,
  listItems,
  priorities,
  workStatuses,
  type WorkRecord,
  type WorkState,
} from '../../schema/index.js';
import { auth, quantile, rssMiB, startServe } from './node.js';
import { row, type BenchRow } from './table.js';

const projects = ['ENG', 'OPS', 'WEB', 'DATA'] as const;
const handles = Array.from({ length: 20 }, (_, i) => `seat-${i}`);
/** The person with many items: assigned one item in ten, watching one in twenty-five. */
const HEAVY = 'ada';
const words = ['login', 'billing', 'search', 'export', 'upload', 'flaky test', 'dashboard', 'latency'];
const encoder = new TextEncoder();

type Created = Extract<WorkRecord, { kind: 'item.created' }>;

/** The `i`-th create record (1-based), varied in project, status, priority, assignees and words. */
function seedRecord(i: number, numbers: Map<string, number>, start: number): Created {
  const project = projects[i % projects.length]!;
  const number = (numbers.get(project) ?? 0) + 1;
  numbers.set(project, number);
  const assignees = [handles[i % handles.length]!, ...(i % 10 === 0 ? [HEAVY] : [])];
  return {
    kind: 'item.created',
    op_id: `seed-${i}`,
    at: new Date(start + i * 1000).toISOString(),
    actor: 'bench',
    turn_id: null,
    id: `seed-${i}`,
    project,
    key: `${project}-${number}`,
    number,
    status: workStatuses[(i * 7) % workStatuses.length]!,
    fields: {
      ...defaultFields(),
      title: `${words[i % words.length]} item ${i}`,
      description: `Seeded item ${i} about ${words[(i * 3) % words.length]}`,
      priority: priorities[(i * 3) % priorities.length]!,
      assignees,
      watchers: i % 25 === 0 ? [HEAVY] : [],
      labels: [`l${i % 12}`],
    },
  };
}

/** Writes `count` records into the store under `storeDir`; returns the same records folded here. */
async function seed(storeDir: string, count: number): Promise<WorkState> {
  const bus = await openMemoryBus({ storeDir });
  const state = emptyWorkState();
  try {
    await ensureCatalogue(bus);
    const numbers = new Map<string, number>();
    const start = Date.now() - count * 1000;
    const WINDOW = 500;
    for (let from = 1; from <= count; from += WINDOW) {
      const records = Array.from({ length: Math.min(WINDOW, count - from + 1) }, (_, k) =>
        seedRecord(from + k, numbers, start),
      );
      // In order, so each record's sequence is its index (the fold below uses the same).
      const acks = records.map((r) =>
        bus.publish(Subjects.work(`p.${r.project}`), encoder.encode(JSON.stringify(r))),
      );
      const stored = await Promise.all(acks);
      records.forEach((r, k) => foldWork(state, r, stored[k]!.seq));
    }
  } finally {
    await bus.close();
  }
  return state;
}

/** p50 and p99 of `times` runs, in ms. */
async function timed(times: number, run: () => unknown): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}

/**
 * Folds purge records for the oldest `purges` items into `state` (retention purging most of the log) and
 * prints how long the fold and the first listing read after it took: a diagnostic, in process.
 */
function purgeFigure(state: WorkState, purges: number): void {
  const oldest = [...state.items.values()].slice(0, purges);
  const at = new Date().toISOString();
  let seq = state.seq;
  const t0 = performance.now();
  for (const item of oldest)
    foldWork(
      state,
      {
        kind: 'item.purged',
        op_id: `purge-${item.id}`,
        at,
        actor: 'bench',
        turn_id: null,
        id: item.id,
        reason: 'retention',
      },
      ++seq,
    );
  const folded = performance.now() - t0;
  const { total } = listItems(state, listAll);
  const read = performance.now() - t0 - folded;
  console.log(
    `folding ${oldest.length} purges of the oldest items in process: ${(folded / 1000).toFixed(2)} s, then the first listing read ${read.toFixed(1)} ms (${total} items left)`,
  );
}

/** The listing query with no filter (each read below narrows it). */
export const listAll = {
  project: null,
  statuses: [],
  groups: [],
  assignee: null,
  type: null,
  priority: null,
  label: null,
  q: null,
  limit: 50,
  after: null,
};

export async function seededFigures(count: number, queries: number, rows: BenchRow[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-work-'));
  try {
    const t0 = performance.now();
    const state = await seed(join(dir, 'data'), count);
    console.log(`seeded ${count} items into the store in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    let spawned = 0;
    const node = await startServe({
      dir,
      extra: ['tracker: {backend: native}'],
      onSpawn: () => (spawned = performance.now()),
    });
    try {
      const ready = await node.waitForLog((l) => l.msg === 'projection ready' && l['projection'] === 'work');
      const res = await fetch(`${node.url}/work?limit=1`, { headers: auth });
      const total = ((await res.json()) as { total?: number }).total;
      if (total !== count) throw new Error(`GET /work lists ${total} items, ${count} were seeded`);
      const boot = performance.now() - spawned;
      const rss = rssMiB(node.pid);
      console.log(
        `svc serve on ${count} seeded items: ready in ${(boot / 1000).toFixed(1)} s (work replay ${String(ready['replay_ms'])} ms), RSS ${rss.toFixed(0)} MiB`,
      );
      rows.push(row('work', `boot to ready, ${count} items`, boot / 1000, 's', null));
      rows.push(row('work', `node RSS, ${count} items`, rss, 'MiB', null));
      const now = new Date();
      const reads: ReadonlyArray<readonly [string, string, () => unknown]> = [
        ['GET /work newest page', 'work?limit=50', () => listItems(state, listAll)],
        [
          'GET /work project+group+assignee',
          `work?project=ENG&group=active&assignee=${HEAVY}&limit=50`,
          () => listItems(state, { ...listAll, project: 'ENG', groups: ['active'], assignee: HEAVY }),
        ],
        [
          'GET /work statuses+priority',
          'work?status=todo,in_review&priority=urgent&limit=50',
          () => listItems(state, { ...listAll, statuses: ['todo', 'in_review'], priority: 'urgent' }),
        ],
        [
          'GET /work project+text',
          'work?project=OPS&q=flaky&limit=50',
          () => listItems(state, { ...listAll, project: 'OPS', q: 'flaky' }),
        ],
        [`GET /work/my-work (${HEAVY})`, `work/my-work?handle=${HEAVY}`, () => myWork(state, HEAVY, now)],
        [
          `GET /work/inbox (${HEAVY})`,
          `work/inbox?handle=${HEAVY}&limit=50`,
          () =>
            inboxPage(state, {
              handle: HEAVY,
              unread: null,
              primaryOnly: false,
              snoozed: 'exclude',
              reasons: [],
              limit: 50,
              before: null,
              since: 0,
              now,
            }),
        ],
      ];
      for (const [name, path, local] of reads) {
        const get = async (): Promise<void> => {
          const answer = await fetch(`${node.url}/${path}`, { headers: auth });
          if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
          await answer.arrayBuffer();
        };
        // The node closes a connection left idle while this process timed the last read in process: the
        // first, untimed, request may find it closed and is sent again.
        await get().catch(get);
        const http = await timed(queries, get);
        const inProcess = await timed(queries, local);
        const ms = (t: { p50: number; p99: number }) =>
          `p50 ${t.p50.toFixed(2)} ms, p99 ${t.p99.toFixed(2)} ms`;
        console.log(`${name} at ${count} items: ${ms(http)}; in process ${ms(inProcess)}`);
        rows.push(row('work', `${name} p99, ${count} items`, http.p99, 'ms', inProcess.p99));
      }
      console.log(`node RSS after the reads: ${rssMiB(node.pid).toFixed(0)} MiB`);
    } finally {
      await node.stop();
    }
    purgeFigure(state, Math.floor(count * 0.8));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
