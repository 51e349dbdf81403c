/**
 * `learning.personal_memory.max_refreshes_per_turn` caps the `memory_recall` calls of one turn, across its
 * phases: past it a call is not run and the model reads a tool error naming the setting, the turn goes on
 * and completes; the next turn starts again at 0; without the setting there is no cap. A turn resumed from
 * its journal after a restart counts the recalls its journal shows, so it gets no fresh allowance. Turns run
 * on a local OpenAI-compatible server and the seats runtime as `svc serve` wires them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { agentId, Payloads } from '../../../schema/index.js';
import { startLlmServer } from '../../fixtures/llm/llm-server.js';
import type { Step } from '../../fixtures/llm/script.js';
import { startCompany, type Harness } from '../seat/harness.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const plan: Step = {
  kind: 'text',
  text: JSON.stringify({
    decision: 'plan',
    steps: ['look it up'],
    success_criteria: ['answered'],
    tools: ['memory_recall'],
  }),
  usage,
};
const recalls = (...ids: string[]): Step => ({
  kind: 'tool_calls',
  calls: ids.map((id) => ({ id, name: 'memory_recall', arguments: { query: 'release' } })),
  usage,
});
const account: Step = { kind: 'text', text: 'The release train leaves on Fridays.', usage };
const accept: Step = { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage };

const note = 'The release train leaves on Fridays';
const capped = (cap: number) => ({ learning: { personal_memory: { max_refreshes_per_turn: cap } } });
const limitError = (cap: number): RegExp =>
  new RegExp(
    `^Not recalled: the limit of ${cap} memory_recall calls per turn was reached this turn ` +
      '\\(learning\\.personal_memory\\.max_refreshes_per_turn\\)',
  );

async function seedNote(h: Harness): Promise<void> {
  await h.memory.remember(agentId('Acme', 'ada'), {
    id: 'note-1',
    kind: 'long',
    content: note,
    metadata: {},
    ttl_until: null,
    created_at: new Date().toISOString(),
  });
}

/** The turn's `memory_recall` rows in call order (plan's, then execute's), by the model's call id. */
async function recallsOf(h: Harness, turnId: string): Promise<Map<string, { ok: boolean; text: string }>> {
  const phases = (await h.events('agent_phase_completed'))
    .map((e) => Payloads.AgentPhaseCompleted.parse(e.payload))
    .filter((p) => p.turn_id === turnId);
  const out = new Map<string, { ok: boolean; text: string }>();
  for (const p of phases)
    for (const x of p.tool_executions)
      if (x.name === 'memory_recall')
        out.set(x.call_id ?? '', { ok: x.error === null, text: x.error ?? x.result ?? '' });
  return out;
}

async function completedTurn(h: Harness, skip: readonly string[] = []) {
  const done = await h.waitFor(
    (e) => e.type === 'agent_turn_completed' && !skip.includes(e.payload['turn_id'] as string),
  );
  return Payloads.AgentTurnCompleted.parse(done.payload);
}

t.test(
  'past max_refreshes_per_turn a memory_recall is a tool error naming the setting, the turn completes, and the next turn starts again at 0',
  async (t) => {
    const h = await startCompany(t, {
      script: [
        // Turn 1: one recall while planning, two while executing (the second one is past the cap of 2).
        recalls('r1'),
        plan,
        recalls('r2'),
        recalls('r3'),
        account,
        accept,
        // Turn 2: a recall again.
        recalls('r4'),
        plan,
        account,
        accept,
      ],
      extra: capped(2),
    });
    await seedNote(h);

    await h.wake('ada', 'wake-1', 'When does the release leave?');
    const first = await completedTurn(h);
    t.equal(first.failed, false, 'the turn completed: a refused recall is no turn failure');
    const one = await recallsOf(h, first.turn_id);
    t.same([...one.keys()], ['r1', 'r2', 'r3'], 'every call was answered');
    t.ok(one.get('r1')?.ok, 'the first call (planning) ran');
    t.match(one.get('r1')?.text, note);
    t.ok(one.get('r2')?.ok, 'the second call (executing) ran: the cap counts across phases');
    t.match(one.get('r2')?.text, note);
    t.notOk(one.get('r3')?.ok, 'the third call is refused');
    t.match(one.get('r3')?.text, limitError(2));
    // The model read the refusal as the call's tool result, and went on to its account.
    const afterRefusal = JSON.stringify(h.llm.requests[4]?.body);
    t.match(afterRefusal, /Not recalled: the limit of 2 memory_recall calls per turn/);

    await h.wake('ada', 'wake-2', 'And when does it leave again?');
    const second = await completedTurn(h, [first.turn_id]);
    t.equal(second.failed, false);
    const two = await recallsOf(h, second.turn_id);
    t.ok(two.get('r4')?.ok, 'a new turn may recall again');
    t.match(two.get('r4')?.text, note);
  },
);

t.test(
  'a memory_recall refused for its arguments ran nothing and does not count toward the cap',
  async (t) => {
    const bad = (id: string, args: unknown): Step => ({
      kind: 'tool_calls',
      calls: [{ id, name: 'memory_recall', arguments: args }],
      usage,
    });
    const h = await startCompany(t, {
      script: [
        bad('b1', { limit: 'many' }),
        plan,
        recalls('r1'),
        recalls('r2'),
        recalls('r3'),
        account,
        accept,
      ],
      extra: capped(2),
    });
    await seedNote(h);
    await h.wake('ada', 'wake-1', 'When does the release leave?');
    const turn = await completedTurn(h);
    t.equal(turn.failed, false);
    const rows = await recallsOf(h, turn.turn_id);
    t.same([...rows.keys()], ['b1', 'r1', 'r2', 'r3']);
    t.match(rows.get('b1')?.text, /^invalid arguments for memory_recall:/, 'the bad call is refused');
    t.ok(rows.get('r1')?.ok, 'the first recall that runs is the first counted');
    t.ok(rows.get('r2')?.ok, 'the second one runs too: the refusal took none of the two');
    t.match(rows.get('r3')?.text, limitError(2), 'the third one is past the cap');
  },
);

t.test('without max_refreshes_per_turn memory_recall has no per-turn cap', async (t) => {
  const h = await startCompany(t, {
    script: [recalls('r1', 'r2'), plan, recalls('r3', 'r4'), recalls('r5'), account, accept],
  });
  await seedNote(h);
  await h.wake('ada', 'wake-1', 'When does the release leave?');
  const turn = await completedTurn(h);
  t.equal(turn.failed, false);
  const rows = await recallsOf(h, turn.turn_id);
  t.same([...rows.keys()], ['r1', 'r2', 'r3', 'r4', 'r5']);
  for (const [id, row] of rows) {
    t.ok(row.ok, `${id} ran`);
    t.match(row.text, note, `${id} returned the note`);
  }
});

t.test('max_refreshes_per_turn 0 offers no memory_recall, and a call anyway recalls nothing', async (t) => {
  const h = await startCompany(t, { script: [plan, recalls('r1'), account, accept], extra: capped(0) });
  await seedNote(h);
  await h.wake('ada', 'wake-1', 'When does the release leave?');
  const turn = await completedTurn(h);
  t.equal(turn.failed, false);
  const offered = (i: number): string[] =>
    ((h.llm.requests[i]?.body?.['tools'] ?? []) as Array<{ function?: { name?: string } }>).map(
      (tool) => tool.function?.name ?? '',
    );
  t.notOk(offered(0).includes('memory_recall'), 'planning is not offered memory_recall');
  t.ok(offered(0).includes('memory_remember'), 'while the other memory tool stays');
  t.notOk(offered(1).includes('memory_recall'), 'nor is executing, though the plan named it');
  const rows = await recallsOf(h, turn.turn_id);
  t.notOk(rows.get('r1')?.ok, 'a call the model makes anyway is refused');
  t.notMatch(rows.get('r1')?.text, note, 'and returns no note');
});

function storeDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-recall-cap-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'data');
}

t.test(
  'a turn resumed from its journal after a restart counts the recalls its journal shows: no fresh allowance',
  async (t) => {
    const dir = storeDir(t);
    // First run: a recall while planning, one while executing; the seats stop during the next model call.
    const first = await startCompany(t, {
      script: [recalls('r1'), plan, recalls('r2'), { ...account, hold: 'never' }],
      storeDir: dir,
      extra: capped(3),
    });
    await seedNote(first);
    await first.wake('ada', 'wake-1', 'When does the release leave?');
    await first.llm.waitForRequests(4);
    await first.stopSeats();
    t.same(await first.events('agent_turn_completed'), [], 'the turn was cut before it completed');
    await first.bus.close();

    // Second run over the same store: the execute round the cut interrupted asks for two more recalls.
    const llm = await startLlmServer({ wire: 'openai', script: [recalls('r3', 'r4'), account, accept] });
    t.teardown(() => llm.close());
    const second = await startCompany(t, { script: [], storeDir: dir, llm, extra: capped(3) });
    const turn = await completedTurn(second);
    t.equal(turn.failed, false);
    t.equal(llm.requests.length, 3, 'the plan and the first execute round were replayed, not asked again');
    const rows = await recallsOf(second, turn.turn_id);
    t.same([...rows.keys()], ['r1', 'r2', 'r3', 'r4']);
    t.ok(rows.get('r1')?.ok && rows.get('r2')?.ok, 'the journaled recalls stand');
    t.ok(rows.get('r3')?.ok, 'the third recall of the turn ran');
    t.match(rows.get('r3')?.text, note);
    t.notOk(rows.get('r4')?.ok, 'the fourth is past the cap of 3: the first run’s recalls counted');
    t.match(rows.get('r4')?.text, limitError(3));
  },
);
