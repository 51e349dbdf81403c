/**
 * Replays in any order give the same answer: pause state and llm_history depend on the events' instants,
 * never on arrival order or on how a stamp is encoded.
 */
import fc from 'fast-check';
import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import { addDays, isoWeekLabel, startOfLocalDay } from '../../../projections/time/zoned-time.js';
import { companyDoc, event, phaseCompleted, phaseStarted, turnCompleted } from '../fixtures/readmodels.js';

/** One instant in one of several encodings. */
function encode(ms: number, how: number): string {
  const iso = new Date(ms).toISOString();
  switch (how % 4) {
    case 0:
      return iso;
    case 1: {
      const shifted = new Date(ms + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      return shifted;
    }
    case 2: {
      const shifted = new Date(ms - 5 * 3_600_000 - 30 * 60_000).toISOString().replace('Z', '-05:30');
      return shifted.replace('T', ' ');
    }
    default:
      return String(ms);
  }
}

const base = Date.parse('2026-11-23T00:00:00Z');
const steps = fc.uniqueArray(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 12 });

t.test('the newest pause or resume wins whatever the arrival order and encoding', async (t) => {
  t.doesNotThrow(
    () =>
      fc.assert(
        fc.property(
          steps,
          fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
          fc.nat(),
          (offsets, hows, seed) => {
            const events = offsets.map((off, i) => {
              const at = encode(base + off * 1000, hows[i] ?? 0);
              return off % 2 === 0
                ? event(
                    'agent_paused',
                    'cto',
                    { paused: { by: `op${off}`, at, reason: 'r', stop_running: false } },
                    at,
                  )
                : event('agent_resumed', 'cto', { by: `op${off}`, at }, at);
            });
            const newest = Math.max(...offsets);
            const shuffled = [...events].sort(
              (a, b) => ((a.id.charCodeAt(0) + seed) % 7) - ((b.id.charCodeAt(0) + seed) % 7),
            );
            const m = new ReadModels();
            m.setCompany(companyDoc, 'r');
            for (const e of shuffled) m.applyEvent(e);
            const paused = m.agent('cto')!.paused;
            return newest % 2 === 0 ? paused?.by === `op${newest}` : paused === null;
          },
        ),
      ),
    'holds for every arrival order',
  );
});

t.test('llm_history order is the same for every arrival order', async (t) => {
  t.doesNotThrow(
    () =>
      fc.assert(
        fc.property(steps, fc.nat(), (offsets, seed) => {
          const events = offsets.map((off, i) => {
            const at = encode(base + off * 1000, i);
            return event('agent_phase_completed', 'cto', phaseCompleted(`turn-${off}`, 'plan', at), at);
          });
          const rotate = seed % events.length;
          const arrival = [...events.slice(rotate), ...events.slice(0, rotate)].reverse();
          const m = new ReadModels();
          m.setCompany(companyDoc, 'r');
          for (const e of arrival) m.applyEvent(e);
          const got = m.agent('cto')!.llm_history.map((h) => h.turn_id);
          const want = [...offsets]
            .sort((a, b) => b - a)
            .slice(0, 50)
            .map((o) => `turn-${o}`);
          return JSON.stringify(got) === JSON.stringify(want);
        }),
      ),
    'holds for every arrival order',
  );
});

t.test(
  "a phase's first frame folded before its agent_phase_started: the seat still reads working in that phase",
  async (t) => {
    // A node folds its own seats' frames as they are made, the stored records when the tail brings them.
    const m = new ReadModels();
    m.setCompany(companyDoc, 'r');
    const frame = event(
      'agent_turn_progress',
      'cto',
      {
        turn_id: 'turn-1',
        phase: 'plan',
        iteration: 0,
        round_num: -1,
        max_rounds: 8,
        response: '',
        tool_calls: [],
        running_call: { name: 'gpt-main', started_at: '2026-11-23T10:00:01Z', origin: 'model', server: null },
      },
      '2026-11-23T10:00:01Z',
    );
    m.applyEvent(frame);
    m.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-1'), '2026-11-23T10:00:00Z'));
    const row = m.agent('cto')!;
    t.match(row, { activity: 'working', turn: { turn_id: 'turn-1', phase: 'plan' } });
    t.match(
      row.live_call,
      { in_progress: true, running_call: { name: 'gpt-main' } },
      'the newer frame stays',
    );
  },
);

/** A live-view frame of turn-1's execute call, model call running, stamped `at`. */
const executeFrame = (at: string) =>
  event(
    'agent_turn_progress',
    'cto',
    {
      turn_id: 'turn-1',
      phase: 'execute',
      iteration: 0,
      round_num: 0,
      max_rounds: 8,
      response: '',
      tool_calls: [],
      running_call: { name: 'gpt-main', started_at: at, origin: 'model', server: null },
    },
    at,
  );

t.test(
  'a frame of the call stamped at the instant of the record that ends or cuts it, folded after it, loses the tie',
  async (t) => {
    // On another node frames and records travel on different subjects: the frame may be folded last.
    const at = (s: number) => `2026-11-23T10:00:0${s}Z`;
    const endings: Array<[string, string, Record<string, unknown>]> = [
      ['a stop_running pause', 'agent_paused', { paused: { by: 'ops', at: at(4), reason: 'r', stop_running: true } }],
      ['a wait for retry_at', 'llm_unavailable', { provider: 'main', reason: 'keys_cooling', turn_id: 'turn-1', phase: 'execute', retry_at: '2026-11-23T11:00:00Z' }],
      ['the phase record', 'agent_phase_completed', phaseCompleted('turn-1', 'execute', at(4))],
      ['the turn record', 'agent_turn_completed', turnCompleted('turn-1', at(4), { failed: true })],
    ]; // prettier-ignore
    for (const [name, type, payload] of endings) {
      const m = new ReadModels();
      m.setCompany(companyDoc, 'r');
      m.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-1', 'execute', 0, at(1)), at(1)));
      m.applyEvent(executeFrame(at(2)));
      m.applyEvent(event(type, 'cto', payload, at(4)));
      m.applyEvent(executeFrame(at(4)));
      const call = m.agent('cto')!.live_call;
      t.notOk(call?.in_progress ?? false, `${name}: the call does not read in progress`);
      t.equal(call?.running_call ?? null, null, `${name}: no running call`);
    }
  },
);

t.test('a frame newer than a pause that cut its call is the resumed turn carrying it on', async (t) => {
  const at = (s: number) => `2026-11-23T10:00:0${s}Z`;
  const m = new ReadModels();
  m.setCompany(companyDoc, 'r');
  m.applyEvent(event('agent_phase_started', 'cto', phaseStarted('turn-1', 'execute', 0, at(1)), at(1)));
  m.applyEvent(executeFrame(at(2)));
  const paused = { by: 'ops', at: at(3), reason: 'r', stop_running: true };
  m.applyEvent(event('agent_paused', 'cto', { paused }, at(3)));
  m.applyEvent(event('agent_resumed', 'cto', { by: 'ops', at: at(4) }, at(4)));
  m.applyEvent(executeFrame(at(5)));
  t.match(m.agent('cto')!.live_call, { in_progress: true, running_call: { name: 'gpt-main' } });
});

t.test(
  'company days follow DST: a New York day is 23 h on the spring change, 25 h on the autumn one',
  async (t) => {
    const tz = 'America/New_York';
    const spring = { year: 2026, month: 3, day: 8 };
    const autumn = { year: 2026, month: 11, day: 1 };
    t.equal(new Date(startOfLocalDay(spring, tz)).toISOString(), '2026-03-08T05:00:00.000Z');
    t.equal(startOfLocalDay(addDays(spring, 1), tz) - startOfLocalDay(spring, tz), 23 * 3_600_000);
    t.equal(startOfLocalDay(addDays(autumn, 1), tz) - startOfLocalDay(autumn, tz), 25 * 3_600_000);
    t.equal(isoWeekLabel({ year: 2026, month: 12, day: 28 }), '2026-W53');
    t.equal(isoWeekLabel({ year: 2024, month: 12, day: 30 }), '2025-W01');
  },
);
