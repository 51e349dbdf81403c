import t from 'tap';
import { Streams, Subjects } from '../../../bus/index.js';
import { EventRecord, Payloads } from '../../../schema/index.js';
import { cleanTurn, startCompany } from './harness.js';

const echoCall = (id: string) => ({
  kind: 'tool_calls' as const,
  calls: [{ id, name: 'files_echo', arguments: { text: id } }],
});

t.test(
  'execute extends its round limit by the step up to the ceiling, then the max_rounds guard ends it',
  async (t) => {
    const script = [
      { kind: 'text' as const, text: '{"decision":"plan","steps":["loop"],"tools":[]}' },
      echoCall('a'),
      echoCall('b'),
      echoCall('c'),
      { kind: 'text' as const, text: 'Echoed a, b and c; the round limit stopped me there.' },
      { kind: 'text' as const, text: '{"verdict":"done","notes":"ok"}' },
    ];
    const h = await startCompany(t, {
      script,
      progressEveryMs: 0,
      extra: {
        turn_engine: {
          max_tool_rounds: 1,
          extension_enabled: true,
          extension_round_step: 2,
          execute_max_tool_rounds_ceiling: 3,
        },
      },
    });
    const progress: EventRecord[] = [];
    const sub = h.bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (msg) =>
      progress.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data)))),
    );
    t.teardown(() => sub.stop());
    await h.wake('ada');
    await h.waitFor((e) => e.type === 'agent_turn_completed');
    const execute = Payloads.AgentPhaseCompleted.parse(
      (await h.events('agent_phase_completed')).find((e) => e.payload['phase'] === 'execute')!.payload,
    );
    t.equal(execute.tool_executions.length, 3, 'one round, then two more by extension');
    t.equal(execute.max_rounds, 3);
    t.equal(execute.round_ceiling, 3);
    t.ok(execute.timeline.some((e) => e.kind === 'extended'));
    const breach = await h.waitFor((e) => e.type === 'turn.guard_breach');
    t.match(Payloads.TurnGuardBreach.parse(breach.payload), { kind: 'max_rounds', phase: 'execute' });
    t.equal(
      execute.response,
      'Echoed a, b and c; the round limit stopped me there.',
      'the phase ends with the account of one closing call',
    );
    t.same(
      execute.rounds.map((r) => r.tool_calls),
      [['files_echo'], ['files_echo'], ['files_echo'], []],
    );
    const closing = h.llm.requests[4]!.body as { tools?: unknown[]; messages: { content: unknown }[] };
    t.notOk(closing.tools?.length, 'the closing call offers no tool');
    t.match(JSON.stringify(closing.messages.at(-1)), /no more tools can be called/);

    const rounds = progress.map((e) => Payloads.AgentTurnProgress.parse(e.payload));
    t.same(
      rounds
        // Frames of text streaming in (sent every 250 ms while a call runs) depend on the machine's pace.
        .filter(
          (r) => r.phase === 'execute' && r.running_call?.origin === 'model' && r.partial_round === null,
        )
        .map((r) => r.round_num),
      [-1, 0, 1, 2],
      'a model call is shown per round, -1 first, and the closing call',
    );
    t.notOk((await h.events('agent_turn_progress')).length, 'progress is never stored');
  },
);

t.test(
  'the live view shows the call running now, the finished rounds and the narration while a phase runs',
  async (t) => {
    // Every change sent as it happens: the frames name each step (turn.live.unit paces them).
    const h = await startCompany(t, { script: cleanTurn, progressEveryMs: 0 });
    const frames: Payloads.AgentTurnProgress[] = [];
    const sub = h.bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (msg) =>
      frames.push(
        Payloads.AgentTurnProgress.parse(
          EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data))).payload,
        ),
      ),
    );
    t.teardown(() => sub.stop());
    await h.wake('ada');
    await h.waitFor((e) => e.type === 'agent_turn_completed');
    // Frames of text streaming in (sent every 250 ms while a call runs) depend on the machine's pace.
    const execute = frames.filter((f) => f.phase === 'execute' && f.partial_round === null);
    const running = execute.map((f) => [
      f.running_call?.origin ?? null,
      f.running_call?.name ?? null,
      f.round_num,
    ]);
    t.same(
      running,
      [
        ['model', 'local-1', -1],
        [null, null, -1],
        ['mcp:files', 'files_echo', -1],
        [null, null, -1],
        ['model', 'local-1', 0],
        [null, null, 0],
      ],
      'the model call, then the tool, then the model again, each shown while it runs and cleared after',
    );
    const tool = execute[2]!;
    t.equal(tool.rounds?.length, 1, 'the round that asked for the tool is finished');
    t.same(tool.rounds?.[0]?.tool_calls, ['files_echo']);
    t.equal(tool.tool_calls.length, 0, 'no tool finished yet');
    t.ok(Date.parse(tool.running_call!.started_at) >= Date.parse(tool.round_started_at!), 'with its start');
    const after = execute[3]!;
    t.equal(after.tool_calls.length, 1, 'the tool finished');
    t.equal(after.running_call, null);
    const last = execute.at(-1)!;
    t.equal(last.rounds?.length, 2);
    t.equal(last.response, 'I echoed hi.');
    t.equal(last.round_narration, 'I echoed hi.', 'the narration of the latest finished round');
    t.equal(last.partial_round, null, 'no round being written once it is finished');
  },
);

t.test(
  'a builtin tool’s result is written behind, yet the journal holds it before the round that read it',
  async (t) => {
    const lookup = (id: string) => ({
      kind: 'tool_calls' as const,
      calls: [{ id, name: 'org_lookup', arguments: { query: 'ada' } }],
    });
    const script = [
      { kind: 'text' as const, text: '{"decision":"plan","steps":["look"],"tools":["org_lookup"]}' },
      lookup('a'),
      lookup('b'),
      { kind: 'text' as const, text: 'Looked twice.' },
      { kind: 'text' as const, text: '{"verdict":"done","notes":"ok"}' },
    ];
    const h = await startCompany(t, { script });
    await h.wake('ada');
    await h.waitFor((e) => e.type === 'agent_turn_completed');
    const kinds: string[] = [];
    for await (const msg of h.bus.replay(Streams.Turns)) {
      const r = JSON.parse(new TextDecoder().decode(msg.data)) as {
        kind: string;
        phase?: string;
        round?: number;
        index?: number;
      };
      if (r.phase !== 'execute') continue;
      kinds.push([r.kind, r.round, r.index].filter((v) => v !== undefined).join(' '));
    }
    t.same(
      kinds,
      [
        'phase_started',
        'round -1',
        'tool_result -1 0',
        'round 0',
        'tool_result 0 0',
        'round 1',
        'phase_completed',
      ],
      'each result ahead of the next round; no start recorded for a call that may simply run again',
    );
    const asked = JSON.stringify(h.llm.requests[2]!.body);
    t.match(asked, /"tool_call_id":"a"/, 'the round after the first lookup read its result');
  },
);

t.test(
  'review offers no tool, so it is one call: a tool call in its answer neither runs nor loops',
  async (t) => {
    const script = [
      { kind: 'text' as const, text: '{"decision":"plan","steps":["say hi"],"tools":[]}' },
      { kind: 'text' as const, text: 'Said hi.' },
      { kind: 'tool_calls' as const, calls: [{ id: 'r1', name: 'files_echo', arguments: { text: 'look' } }] },
      { kind: 'text' as const, text: '{"verdict":"done","notes":"never asked"}' },
    ];
    const h = await startCompany(t, { script });
    await h.wake('ada');
    await h.waitFor((e) => e.type === 'agent_turn_completed');
    const review = Payloads.AgentPhaseCompleted.parse(
      (await h.events('agent_phase_completed')).find((e) => e.payload['phase'] === 'review')!.payload,
    );
    t.equal(review.rounds.length, 1, 'one model call');
    t.same(review.tool_executions, [], 'nothing ran');
    t.same(await h.events('turn.guard_breach'), [], 'no max_rounds breach');
    t.equal(h.llm.requests.length, 3, 'plan, execute, review: the fourth answer was never asked for');
  },
);
