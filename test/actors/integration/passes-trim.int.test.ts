/**
 * Pass records are bounded on the stream as the read model bounds them (the newest RUNS_KEPT per kind): a
 * compaction removes the starts and finishes of runs past them, never an open pass, and a node folding the
 * trimmed stream from zero pages the same runs. On the memory engine and on JetStream.
 */
import t, { type Test } from 'tap';
import { Streams, Subjects, type Bus } from '../../../bus/index.js';
import { listPassRuns, RUNS_KEPT, type IntegrationsState } from '../../../projections/index.js';
import { followIntegrations } from '../../../scripts/integrations-view.js';
import {
  onBothEngines,
  recordPass,
  records,
  sameCounts,
  writer,
  type Engine,
} from '../../http/webhooks/fixtures/arrivals-compaction.js';

const encoder = new TextEncoder();
const PASSES = RUNS_KEPT + 30;

async function openStart(bus: Bus, id: string, kind: string): Promise<void> {
  const start = { type: 'pass_started', run_id: id, kind, mode: 'provision', node: 'gone', actor: 'op', started_at: '2026-03-01T00:00:00.000Z' }; // prettier-ignore
  await bus.publish(Subjects.integration(kind, 'pass_started'), encoder.encode(JSON.stringify(start)));
}

/** Every run of `kind` as `GET .../runs` pages them, ten at a time. */
function pagedIds(state: IntegrationsState, kind: string): string[] {
  const ids: string[] = [];
  let before: string | undefined;
  for (;;) {
    const page = listPassRuns(state, kind, { limit: 10, ...(before ? { before } : {}) });
    ids.push(...page.runs.map((r) => r.id));
    if (!page.more) return ids;
    before = page.runs[page.runs.length - 1]!.id;
  }
}

function trimTests(name: string, engine: (t: Test) => Promise<Engine>): void {
  t.test(
    `${name}: passes past the kept runs go from the stream; the kept ones page the same from zero`,
    async (t) => {
      const { node, bus, tally, arrivals } = await writer(engine, t);
      await openStart(bus, 'open-1', 'monitor');
      for (let i = 0; i < PASSES; i++) await recordPass(bus, `p${i}`);
      await tally.deliver(arrivals);
      const view = await followIntegrations({
        bus,
        rollups: { nodeId: 'n1', threshold: 1_000, passThreshold: 20, everyMs: 0 },
      });
      t.teardown(() => view.stop());
      const before = pagedIds(view.state(), 'tracker-b');
      t.equal(before.length, RUNS_KEPT);

      t.match(await view.rollups!.compact(), {
        outcome: 'compacted',
        passes_removed: 2 * (PASSES - RUNS_KEPT) + 1,
      });
      const left = await records(bus);
      const of = (type: string) => left.filter((r) => r.subject === Subjects.integration('tracker-b', type));
      t.equal(of('pass_finished').length, RUNS_KEPT, 'the finishes of the kept runs only');
      // The oldest kept run's start lies below its finish, the floor: it goes too (its finish says it all).
      t.equal(of('pass_started').length, RUNS_KEPT - 1, 'and their starts');
      t.equal(
        left.filter((r) => r.subject === Subjects.integration('monitor', 'pass_started')).length,
        1,
        'an open pass is never trimmed',
      );
      await view.caughtUp(10_000);
      t.match(await view.rollups!.compact(), { outcome: 'not_due' }, 'nothing more to trim');

      const fresh = await followIntegrations({ bus: await node() });
      t.teardown(() => fresh.stop());
      await fresh.caughtUp(10_000);
      t.same(pagedIds(fresh.state(), 'tracker-b'), before, 'the same runs, paged the same');
      t.ok(fresh.state().started.has('open-1'), 'the open pass still reads as open');
      await sameCounts(t, fresh, tally, 'a node folding the trimmed stream from zero');
      const info = await bus.streamInfo(Streams.Integrations);
      t.ok(info.messages <= 2 * RUNS_KEPT + 4, `the stream holds ${info.messages} records`);
    },
  );
}

onBothEngines(trimTests);
