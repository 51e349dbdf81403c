import t from 'tap';
import { Payloads } from '../../../schema/index.js';
import { mentionWake, queueWake } from '../../harness/wake.js';
import { cleanTurn, company, startCompany } from './harness.js';

t.test(
  'a wake runs plan, execute with a real MCP tool, and review; the turn and its spend are stored',
  async (t) => {
    const h = await startCompany(t, { script: cleanTurn });
    t.same(h.runtime.seats().sort(), ['ada', 'bob', 'cy'], 'three agent seats, the human seat never spawned');

    await h.wake('ada');
    const completed = await h.waitFor((e) => e.type === 'agent_turn_completed');
    t.equal(completed.agent_id, 'ada');
    const turn = Payloads.AgentTurnCompleted.parse(completed.payload);
    t.same(turn.phases, ['plan', 'execute', 'review']);
    t.equal(turn.failed, false);
    t.equal(turn.total_tokens, 100 + 20 + 120 + 10 + 150 + 5 + 90 + 8);
    t.same(turn.review, { reviewed: true, passed_first: true, attempts: 1 });

    const started = await h.events('agent_phase_started');
    const phases = await h.events('agent_phase_completed');
    t.same(
      started.map((e) => e.payload['phase']),
      ['plan', 'execute', 'review'],
    );
    t.same(
      phases.map((e) => e.payload['phase']),
      ['plan', 'execute', 'review'],
    );
    for (const e of [...started, ...phases, completed])
      t.equal(e.trace_id, phases[0]!.trace_id, 'one trace per turn, its completion included');
    for (const e of started)
      t.ok(Payloads.AgentPhaseStarted.safeParse(e.payload).success, 'the read models accept it');
    t.equal(started[0]!.payload['trigger'], 'mention');
    for (const e of started)
      t.equal(e.payload['turn_started_at'], turn.started_at, "every phase names its turn's own start");
    t.equal(started[0]!.payload['model'], 'local-1', 'the expected model is named before the call');
    const execute = Payloads.AgentPhaseCompleted.parse(phases[1]!.payload);
    t.equal(execute.tool_executions.length, 1);
    t.match(execute.tool_executions[0], {
      name: 'files_echo',
      origin: 'mcp:files',
      server: 'files',
      result: 'files: hi',
      error: null,
    });
    t.same(
      execute.rounds.map((r) => r.round),
      [-1, 0],
      'the opening round is -1',
    );
    t.equal(execute.max_rounds, 20);
    t.equal(execute.round_ceiling, 40);
    const plan = Payloads.AgentPhaseCompleted.parse(phases[0]!.payload);
    t.match(plan.system_prompt, /Ada \(@ada\), a member of Acme/);
    t.match(plan.system_prompt, /Mission: Ship useful things/);
    t.match(plan.system_prompt, /Goal: Keep the lights on/);
    t.match(plan.system_prompt, /Unit: Eng/);
    t.match(plan.system_prompt, /Reports: @bob/);
    t.match(plan.system_prompt, /Phase: PLAN/);

    // Execute was offered only the tool the plan picked.
    const executeRequest = h.llm.requests[1]!.body as { tools?: Array<{ function: { name: string } }> };
    t.same(
      executeRequest.tools?.map((tool) => tool.function.name),
      ['files_echo'],
    );
    t.notOk((h.llm.requests[3]!.body as { tools?: unknown }).tools, 'review is offered no tools');

    const spend = await h.spend();
    t.equal(spend.length, 4, 'one spend record per model call');
    t.same(
      spend.map((s) => s.phase),
      ['plan', 'execute', 'execute', 'review'],
    );
    t.ok(spend.every((s) => s.handle === 'ada' && s.turn_id === turn.turn_id && s.provider === 'local'));
    const used = await h.runtime.budget.check('ada', { org: 1, seat: 0 });
    t.equal(used?.used, turn.total_tokens, 'the shared counter counted every token');

    const all = await h.events();
    t.notOk(
      all.some((e) => e.agent_id === 'hu'),
      'the human seat got nothing',
    );
  },
);

t.test(
  'a provider answering 500 records llm_unavailable and fails the turn with its error, not a stop',
  async (t) => {
    const h = await startCompany(t, { script: [{ kind: 'status', status: 500 }] });
    await h.wake('cy');
    const completed = await h.waitFor((e) => e.type === 'agent_turn_completed');
    const turn = Payloads.AgentTurnCompleted.parse(completed.payload);
    t.equal(turn.failed, true);
    t.match(turn.error, /local/);
    const unavailable = (await h.events('llm_unavailable')).filter(
      (e) => e.payload['turn_id'] === turn.turn_id,
    );
    t.equal(unavailable.length, 1);
    t.match(Payloads.LlmUnavailable.parse(unavailable[0]!.payload), {
      provider: 'local',
      reason: 'server_error',
      phase: 'plan',
    });
    const phase = Payloads.AgentPhaseCompleted.parse((await h.events('agent_phase_completed'))[0]!.payload);
    t.equal(phase.failed, true);
    t.ok(phase.error);
    t.equal(h.runtime.host('cy')?.state(), 'idle', 'a provider failure is not a stop');
  },
);

t.test('a turn woken by a work item names it in its phases, its completion and its episode', async (t) => {
  const h = await startCompany(t, { script: cleanTurn });
  const item = { id: 'i-52', key: 'ENG-52', title: 'Task 52', status: 'todo' };
  await queueWake(
    h.bus,
    'ada',
    mentionWake('You were assigned ENG-52: Task 52', { kind: 'assignment', payload: { item, by: 'ops' } }),
  );
  const completed = await h.waitFor((e) => e.type === 'agent_turn_completed');
  t.equal(Payloads.AgentTurnCompleted.parse(completed.payload).work_item, 'ENG-52');
  for (const e of await h.events('agent_phase_started')) t.equal(e.payload['work_item'], 'ENG-52', 'started');
  for (const e of await h.events('agent_phase_completed'))
    t.equal(e.payload['work_item'], 'ENG-52', 'an llm_history row');
  await h.wake('ada');
  const second = await h.waitFor(
    (e) => e.type === 'agent_turn_completed' && e.payload['turn_id'] !== completed.payload['turn_id'],
  );
  t.equal(second.payload['work_item'], null, 'a wake about no item names none');
});

t.test('a plan deciding skip ends the turn after one call', async (t) => {
  const h = await startCompany(t, { script: [{ kind: 'text', text: '{"decision":"skip"}' }] });
  await h.wake('bob');
  const turn = Payloads.AgentTurnCompleted.parse(
    (await h.waitFor((e) => e.type === 'agent_turn_completed')).payload,
  );
  t.same(turn.phases, ['plan']);
  t.same(turn.review, { reviewed: false, passed_first: null, attempts: 0 });
});

t.test('flipping a seat to human decommissions it; flipping back reattaches the same agent id', async (t) => {
  const h = await startCompany(t, { script: [] });
  const doc = (kind: string) => ({
    ...company(h.llm.baseUrl),
    roles: [{ name: 'Cy', kind, ...(kind === 'human' ? { contact: { operator_id: 'x' } } : {}) }],
  });
  await h.apply(doc('human'));
  t.notOk(h.runtime.seats().includes('cy'));
  await h.apply(doc('agent'));
  t.ok(h.runtime.seats().includes('cy'));
});

t.test(
  'a call to a tool the phase does not offer is recorded with origin unknown, not builtin',
  async (t) => {
    const h = await startCompany(t, {
      script: [
        cleanTurn[0]!,
        {
          kind: 'tool_calls',
          calls: [{ id: 'c1', name: 'tickets_create', arguments: { title: 'x' } }],
          usage: { prompt_tokens: 120, completion_tokens: 10 },
        },
        cleanTurn[2]!,
        cleanTurn[3]!,
      ],
    });
    await h.wake('ada');
    await h.waitFor((e) => e.type === 'agent_turn_completed');
    const execute = (await h.events('agent_phase_completed'))
      .map((e) => Payloads.AgentPhaseCompleted.parse(e.payload))
      .find((p) => p.phase === 'execute');
    t.match(execute?.tool_executions, [
      { name: 'tickets_create', origin: 'unknown', server: null, error: /no tool named tickets_create/ },
    ]);
  },
);
