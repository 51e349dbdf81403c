/**
 * One run's long setup does not hold up the others: while a run's setup step still runs (a clone, an
 * install), the node goes on watching its other runs, so another run's question reaches its seat at once.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startSandboxCompany } from './harness.js';

t.test('a run asks while another run’s setup still runs, and its question is seen at once', async (t) => {
  const gate = await mkdtemp(join(tmpdir(), 'svc-sandbox-gate-'));
  t.teardown(async () => {
    await writeFile(join(gate, 'release'), '');
    await rm(gate, { recursive: true, force: true });
  });
  const h = await startSandboxCompany(t, {
    script: [],
    env: { FAKE_QUESTION: 'Which branch?' },
    // Only the slow run's setup waits, for the test to let it go.
    setup: [
      `if [ "$SVC_SANDBOX_ID" = sb-slow ]; then while [ ! -e ${gate}/release ]; do sleep 0.05; done; fi`,
    ],
  });
  const desk = h.tools.sandbox;
  const launch = (id: string) =>
    desk.launch({
      sandbox_id: id,
      seat: 'bob',
      role: 'Bob',
      agent_id: 'agent-bob',
      turn_id: 'turn-1',
      trace_id: 'a'.repeat(32),
      task: 'work',
      work_item: null,
      coding_agent: 'fake',
      settings: desk.settingsFor('bob')!.settings,
    });
  const slow = launch('sb-slow');
  await h.waitRun((r) => r.sandbox_id === 'sb-slow' && r.status === 'launching');
  await launch('sb-quick');
  const asked = await h.waitRun(
    (r) => r.sandbox_id === 'sb-quick' && r.status === 'awaiting_clarification',
    10_000,
  );
  t.equal(asked.question, 'Which branch?');
  t.equal(h.sandboxes.records.get('sb-slow')?.status, 'launching', 'while the other still sets up');

  await writeFile(join(gate, 'release'), '');
  t.equal((await slow).status, 'running');
  await h.waitRun((r) => r.sandbox_id === 'sb-slow' && r.status === 'awaiting_clarification');
  await desk.answer('sb-quick', 'bob', 'main');
  await desk.answer('sb-slow', 'bob', 'main');
  await h.waitRun((r) => r.sandbox_id === 'sb-quick' && r.status === 'done');
  await h.waitRun((r) => r.sandbox_id === 'sb-slow' && r.status === 'done');
});
