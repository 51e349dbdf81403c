/**
 * A served node keeps the pass records on SVC_INTEGRATIONS bounded as its runs are (the newest 100 per
 * kind): its compaction removes the older ones from the store, and after a restart `GET .../runs` pages the
 * same runs as before it.
 */
import t from 'tap';
import { openMemoryBus, Streams, Subjects } from '../../bus/index.js';
import { bootNode, storeDir, type BootedNode } from '../harness/serve-store.js';

const COMPACTION = 'webhooks: {compaction: {threshold: 1000, every_seconds: 1}}';
const CHECKS = 140;

/** Every run of the monitor as `GET .../runs` pages them. */
async function pagedRuns(node: BootedNode): Promise<string[]> {
  const ids: string[] = [];
  let next: string | null = null;
  do {
    const query: string = next === null ? '' : `?before=${next}`;
    const res = await node.call('GET', `/setup/integrations/monitor/runs${query}`);
    const page = (await res.json()) as { runs: Array<{ id: string }>; next: string | null };
    ids.push(...page.runs.map((r) => r.id));
    next = page.next;
  } while (next !== null);
  return ids;
}

t.test('old pass records go from the store; runs page the same after a restart', async (t) => {
  const store = storeDir(t);
  const first = await bootNode(t, store, COMPACTION);
  for (let i = 0; i < CHECKS; i++) {
    const res = await first.call('POST', '/setup/integrations/monitor/check');
    if (res.status !== 200) throw new Error(`check answered ${res.status}`);
  }
  const compacted = await first.run.waitForLog(
    (l) => l['event'] === 'arrivals_compacted' && Number(l['passes_removed']) > 0,
  );
  t.ok(compacted, 'the node compacted pass records');
  const before = await pagedRuns(first);
  t.equal(before.length, 100, 'the newest 100 runs');
  t.equal(await first.stop(), 0);

  const bus = await openMemoryBus({ storeDir: store.storeDir });
  let finishes = 0;
  for await (const m of bus.replay(Streams.Integrations))
    if (m.subject === Subjects.integration('monitor', 'pass_finished')) finishes += 1;
  await bus.close();
  t.ok(finishes < CHECKS, `${finishes} of ${CHECKS} finished passes left in the store`);
  t.ok(finishes >= 100, 'the kept runs are all there');

  const second = await bootNode(t, store, COMPACTION);
  t.same(await pagedRuns(second), before, 'the same runs, paged the same, after the restart');
  t.equal(await second.stop(), 0);
});
