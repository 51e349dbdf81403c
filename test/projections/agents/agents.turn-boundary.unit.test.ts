/**
 * A turn ending and the next one starting in the same millisecond: the new turn's start and its first frame
 * fold to the same live call whatever their order, and the previous turn's last records, its last frame
 * included, never hide it. A seat's records reach a read model in the order the seat published them;
 * its frames are folded apart from them (as made on the seat's node, on their own subject elsewhere).
 */
import fc from 'fast-check';
import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import type { EventRecord } from '../../../schema/index.js';
import { companyDoc, event, phaseCompleted, phaseStarted, turnCompleted } from '../fixtures/readmodels.js';

const at = '2026-11-23T10:00:05.123Z';

/** A frame of `turn`'s execute call with a model call running. */
const frame = (turn: string, running: string) =>
  event(
    'agent_turn_progress',
    'cto',
    {
      turn_id: turn,
      phase: 'execute',
      iteration: 0,
      round_num: 0,
      max_rounds: 8,
      response: '',
      tool_calls: [],
      round_started_at: at,
      running_call: { name: running, started_at: at, origin: 'model', server: null },
    },
    at,
  );

/** turn-1's execute call ending, turn-1 ending, turn-2's execute starting: the seat's own order. */
const records = (): EventRecord[] => [
  event('agent_phase_completed', 'cto', phaseCompleted('turn-1', 'execute', at), at),
  event('agent_turn_completed', 'cto', turnCompleted('turn-1', at), at),
  event('agent_phase_started', 'cto', phaseStarted('turn-2', 'execute', 0, at), at),
];

function fold(events: readonly EventRecord[]): ReadModels {
  const m = new ReadModels();
  m.setCompany(companyDoc, 'r');
  m.applyEvent(
    event('agent_phase_started', 'cto', phaseStarted('turn-1', 'execute'), '2026-11-23T10:00:00Z'),
  );
  for (const e of events) m.applyEvent(e);
  return m;
}

t.test(
  "a new turn's first frame folded before its agent_phase_started in the same millisecond shows its running call",
  async (t) => {
    const [phaseDone, turnDone, started] = records();
    const m = fold([phaseDone!, turnDone!, frame('turn-2', 'gpt-next'), started!]);
    const row = m.agent('cto')!;
    t.match(row.turn, { turn_id: 'turn-2', phase: 'execute' });
    t.match(row.live_call, {
      turn_id: 'turn-2',
      in_progress: true,
      round_num: 0,
      running_call: { name: 'gpt-next', origin: 'model' },
      started_at: at,
    });
  },
);

t.test(
  "a new turn's first frame folded before the previous turn's last records of that millisecond stays shown",
  async (t) => {
    const [phaseDone, turnDone, started] = records();
    const m = fold([frame('turn-2', 'gpt-next'), phaseDone!, turnDone!, started!]);
    const row = m.agent('cto')!;
    t.match(row.live_call, { turn_id: 'turn-2', in_progress: true, running_call: { name: 'gpt-next' } });
    t.match(row.last_turn, { turn_id: 'turn-1' });
  },
);

t.test(
  "the previous turn's last frame folded after the new turn started in the same millisecond does not bring it back",
  async (t) => {
    const m = fold([...records(), frame('turn-1', 'gpt-old')]);
    t.match(m.agent('cto')!.live_call, { turn_id: 'turn-2', in_progress: true, running_call: null });
  },
);

t.test(
  'every order of frames among the records of one millisecond folds to the new turn running',
  async (t) => {
    t.doesNotThrow(
      () =>
        fc.assert(
          fc.property(
            // Where each frame goes among the three records, and whether turn-1's last frame is there at all.
            fc.nat({ max: 3 }),
            fc.nat({ max: 3 }),
            fc.boolean(),
            (oldAt, newAt, withOld) => {
              const events = records();
              // turn-2's frame is made after turn-1's last one and both travel the same way, so it never
              // precedes it; the records keep their own order.
              const newSlot = withOld ? Math.max(oldAt, newAt) : newAt;
              const order: EventRecord[] = [];
              for (let i = 0; i <= events.length; i++) {
                if (withOld && i === oldAt) order.push(frame('turn-1', 'gpt-old'));
                if (i === newSlot) order.push(frame('turn-2', 'gpt-next'));
                if (i < events.length) order.push(events[i]!);
              }
              const row = fold(order).agent('cto')!;
              const call = row.live_call;
              return (
                call?.turn_id === 'turn-2' &&
                call.in_progress &&
                call.running_call?.name === 'gpt-next' &&
                call.started_at === at &&
                row.turn?.turn_id === 'turn-2' &&
                row.last_turn?.turn_id === 'turn-1'
              );
            },
          ),
        ),
      'holds for every order',
    );
  },
);
