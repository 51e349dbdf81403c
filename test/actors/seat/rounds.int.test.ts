import t from 'tap';
import { Subjects } from '../../../bus/index.js';
import { EventRecord, Payloads } from '../../../schema/index.js';
import { startCompany } from './harness.js';

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
      { kind: 'text' as const, text: '{"verdict":"done","notes":"ok"}' },
    ];
    const h = await startCompany(t, {
      script,
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
    const sub = h.bus.subscribe(Subjects.event('agent_turn_progress'), (msg) =>
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

    const rounds = progress.map((e) => Payloads.AgentTurnProgress.parse(e.payload));
    t.same(
      rounds.filter((r) => r.phase === 'execute').map((r) => r.round_num),
      [-1, 0, 1],
      'progress is emitted per round, -1 first',
    );
    t.notOk((await h.events('agent_turn_progress')).length, 'progress is never stored');
  },
);
