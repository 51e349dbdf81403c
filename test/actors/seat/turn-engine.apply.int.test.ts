/**
 * Spec "Revision activation": the turn engine is applied in place, and in-flight turns finish on the prior
 * settings. A turn is held in its first model call while a revision lowers `turn_engine.max_tool_rounds`:
 * it finishes on the rounds it started with, and the next turn runs on the new ones.
 */
import t from 'tap';
import { Payloads, type EventRecord } from '../../../schema/index.js';
import { cleanTurn, company, startCompany } from './harness.js';

const echo = (id: string) => ({
  kind: 'tool_calls' as const,
  calls: [{ id, name: 'files_echo', arguments: { text: id } }],
});
const verdict = { kind: 'text' as const, text: '{"verdict":"done","notes":"ok"}' };

t.test(
  'a turn in flight finishes on the prior turn-engine settings; the next turn runs on the new ones',
  async (t) => {
    const script = [
      // First turn: its plan call is held while the revision applies; execute then uses two tool rounds.
      { ...cleanTurn[0]!, hold: 'plan' },
      echo('a'),
      echo('b'),
      { kind: 'text' as const, text: 'Echoed a and b.' },
      verdict,
      // Second turn: one round, then the closing call the round limit leaves.
      cleanTurn[0]!,
      echo('c'),
      { kind: 'text' as const, text: 'Echoed c; the round limit stopped me there.' },
      verdict,
    ];
    const h = await startCompany(t, { script, extra: { turn_engine: { max_tool_rounds: 3 } } });
    const executes = async (): Promise<Payloads.AgentPhaseCompleted[]> =>
      (await h.events('agent_phase_completed'))
        .map((e) => Payloads.AgentPhaseCompleted.parse(e.payload))
        .filter((p) => p.phase === 'execute');
    // The nth turn completion stored (the follow reads the stream from its first record).
    const turnCompleted = (n: number): Promise<EventRecord> => {
      let seen = 0;
      return h.waitFor((e) => e.type === 'agent_turn_completed' && ++seen === n);
    };

    await h.wake('ada');
    await h.llm.waitForRequests(1);
    await h.apply(company(h.llm.baseUrl, { turn_engine: { max_tool_rounds: 1 } }));
    h.llm.release('plan');
    await turnCompleted(1);
    const [first] = await executes();
    t.equal(first?.max_rounds, 3, 'the turn in flight keeps the rounds it started with');
    t.equal(first?.tool_executions.length, 2, 'both tool rounds ran');
    t.equal(first?.response, 'Echoed a and b.');
    t.same(await h.events('turn.guard_breach'), [], 'no round guard ended it');

    await h.wake('ada');
    await turnCompleted(2);
    t.match(
      (await h.events('turn.guard_breach')).map((e) => e.payload),
      [{ kind: 'max_rounds', phase: 'execute' }],
      'the lower limit ended its execute phase',
    );
    const second = (await executes())[1];
    t.equal(second?.max_rounds, 1, 'the next turn runs on the new setting');
    t.equal(second?.tool_executions.length, 1);
    t.equal(second?.response, 'Echoed c; the round limit stopped me there.');
  },
);
