import t from 'tap';
import { getInitialSnapshot } from 'xstate';
import { seatMachine, type SeatEvent } from '../../actors/seat/seat.machine.js';
import { defaultLimits, turnLimits } from '../../actors/seat/seat.limits.js';
import { at, wake, when, type Effect, type Snap } from './seat/machine.fixture.js';

function given(paused = false): Snap {
  return getInitialSnapshot(seatMachine, {
    handle: 'ada',
    paused: paused ? { by: 'op', at: at(0), reason: 'x', stop_running: false } : null,
  });
}

const woke: SeatEvent = { type: 'seat.wake', wake, turn_id: 'turn-1', at: at(0) };
const planned = (decision: 'plan' | 'direct' | 'skip'): SeatEvent => ({
  type: 'seat.phase.done',
  turn_id: 'turn-1',
  tokens: 10,
  at: at(1),
  outcome: { phase: 'plan', decision, plan: 'steps' },
});
const executed = (response = 'work', delivered = false): SeatEvent => ({
  type: 'seat.phase.done',
  turn_id: 'turn-1',
  tokens: 20,
  at: at(2),
  outcome: { phase: 'execute', response, delivered },
});
const reviewed = (verdict: 'done' | 'self_iterate'): SeatEvent => ({
  type: 'seat.phase.done',
  turn_id: 'turn-1',
  tokens: 5,
  at: at(3),
  outcome: { phase: 'review', verdict, notes: 'n' },
});
const types = (effects: Effect[]): string[] => effects.map((e) => e.type);

t.test('a wake plans, executes, reviews and completes the turn with its tokens', async (t) => {
  const { snap, effects } = when(given(), woke, planned('plan'), executed(), reviewed('done'));
  t.ok(snap.matches('idle'));
  t.same(types(effects), ['runPhase', 'runPhase', 'runPhase', 'completeTurn']);
  t.same(
    effects.filter((e) => e.type === 'runPhase').map((e) => e.params['phase']),
    ['plan', 'execute', 'review'],
  );
  const done = effects.at(-1)!.params as { payload: Record<string, unknown>; stopped: unknown };
  t.match(done.payload, {
    turn_id: 'turn-1',
    phases: ['plan', 'execute', 'review'],
    total_tokens: 35,
    failed: false,
    duration_ms: 3000,
    review: { reviewed: true, passed_first: true, attempts: 1 },
  });
  t.equal(done.stopped, null);
});

t.test('a plan that decides skip ends the turn without executing', async (t) => {
  const { snap, effects } = when(given(), woke, planned('skip'));
  t.ok(snap.matches('idle'));
  t.same(types(effects), ['runPhase', 'completeTurn']);
});

t.test('a direct plan skips review when the delivering tool was called, not otherwise', async (t) => {
  const direct = when(given(), woke, planned('direct'), executed('sent', true));
  t.same(types(direct.effects), ['runPhase', 'runPhase', 'completeTurn']);
  const notDelivered = when(given(), woke, planned('direct'), executed('draft', false));
  t.ok(notDelivered.snap.matches({ working: 'review' }));
});

t.test('review sending work back plans again with the next iteration', async (t) => {
  const { snap, effects } = when(given(), woke, planned('plan'), executed('a'), reviewed('self_iterate'));
  t.ok(snap.matches({ working: 'plan' }));
  const last = effects.at(-1)!.params as { phase: string; turn: { iteration: number } };
  t.equal(last.phase, 'plan');
  t.equal(last.turn.iteration, 1);
});

t.test('two self_iterate reviews of the same artifact breach the stall guard', async (t) => {
  const { snap, effects } = when(
    given(),
    woke,
    planned('plan'),
    executed('same'),
    reviewed('self_iterate'),
    planned('plan'),
    executed('same'),
    reviewed('self_iterate'),
  );
  t.ok(snap.matches('idle'));
  const breach = effects.find((e) => e.type === 'guardBreach');
  t.match(breach?.params, { kind: 'stall', turn_id: 'turn-1', trace_id: 't' }, "on the wake's trace");
  t.match(effects.at(-1)?.params, { payload: { failed: true, error: /stall/ } });
});

t.test('the depth guard ends a turn review never accepts', async (t) => {
  const { effects } = when(
    given(),
    woke,
    ...[0, 1, 2].flatMap((i) => [planned('plan'), executed(`v${i}`), reviewed('self_iterate')]),
  );
  t.match(effects.find((e) => e.type === 'guardBreach')?.params, { kind: 'depth', trace_id: 't' });
  t.equal(effects.filter((e) => e.type === 'runPhase' && e.params['phase'] === 'review').length, 3);
});

t.test('a provider failure fails the turn and returns to idle, not a stop', async (t) => {
  const { snap, effects } = when(given(), woke, {
    type: 'seat.phase.failed',
    turn_id: 'turn-1',
    phase: 'plan',
    tokens: 0,
    at: at(1),
    reason: 'provider',
    error: 'no provider answered',
  });
  t.ok(snap.matches('idle'));
  t.match(effects.at(-1)?.params, {
    payload: { failed: true, error: 'no provider answered' },
    stopped: 'provider',
  });
});

t.test('a budget failure stops the seat with reason budget; a later wake tries again', async (t) => {
  const failed: SeatEvent = {
    type: 'seat.phase.failed',
    turn_id: 'turn-1',
    phase: 'execute',
    tokens: 3,
    at: at(2),
    reason: 'budget',
    error: 'budget exhausted',
  };
  const { snap } = when(given(), woke, planned('plan'), failed);
  t.ok(snap.matches({ stopped: 'budget' }));
  const again = when(snap, { ...woke, turn_id: 'turn-2' });
  t.ok(again.snap.matches({ working: 'plan' }));
});

t.test('pause without stop_running lets the turn finish, then the seat stays paused', async (t) => {
  const paused = { by: 'op', at: at(1), reason: 'look', stop_running: false };
  const { snap, effects } = when(given(), woke, { type: 'seat.pause', paused }, planned('skip'));
  t.same(types(effects), ['runPhase', 'announcePaused', 'completeTurn']);
  t.ok(snap.matches({ stopped: 'paused' }));
  const resumed = when(snap, { type: 'seat.resume', by: 'op', at: at(5) });
  t.ok(resumed.snap.matches('idle'));
  t.same(types(resumed.effects), ['announceResumed']);
});

t.test(
  'pause with stop_running cuts the running turn: no completion, the seat is paused at once',
  async (t) => {
    const paused = { by: 'op', at: at(1), reason: 'stop', stop_running: true };
    const { snap, effects } = when(given(), woke, { type: 'seat.pause', paused });
    t.same(types(effects), ['runPhase', 'announcePaused', 'cutTurn']);
    t.same(effects[2]!.params, { turn_id: 'turn-1' });
    t.ok(snap.matches({ stopped: 'paused' }));
    t.equal(snap.context.turn, null, 'the turn is left to its journal');
    const late = when(snap, {
      type: 'seat.phase.failed',
      turn_id: 'turn-1',
      phase: 'plan',
      tokens: 0,
      at: at(2),
      reason: 'aborted',
      error: 'paused',
    });
    t.ok(late.snap.matches({ stopped: 'paused' }));
    t.same(types(late.effects), [], 'the cut phase ends nothing: no completion');
    const resumed = when(snap, { type: 'seat.resume', by: 'op', at: at(5) }, woke);
    t.ok(resumed.snap.matches({ working: 'plan' }), 'resumed, the seat takes the wake again');
  },
);

t.test('a seat that boots paused takes no wake until resumed', async (t) => {
  const snap = given(true);
  t.ok(snap.matches({ stopped: 'paused' }));
  t.ok(when(snap, woke).snap.matches({ stopped: 'paused' }));
});

t.test('stale phase results of another turn are ignored', async (t) => {
  const { snap, effects } = when(given(), woke, { ...planned('skip'), turn_id: 'other' } as SeatEvent);
  t.ok(snap.matches({ working: 'plan' }));
  t.same(types(effects), ['runPhase']);
});

t.test('settings applied mid-turn reach the next turn, not the running one', async (t) => {
  const wider = turnLimits({ max_tool_rounds: 5 });
  const { effects } = when(given(), woke, { type: 'seat.settings', limits: wider }, planned('plan'));
  t.same((effects.at(-1)!.params as { turn: { limits: unknown } }).turn.limits, defaultLimits);
  const next = when(given(), { type: 'seat.settings', limits: wider }, woke);
  t.equal(
    (next.effects[0]!.params as { turn: { limits: { plan_rounds: number } } }).turn.limits.plan_rounds,
    5,
  );
});

t.test('turn_engine limits: defaults, max_tool_rounds clamped to each ceiling', async (t) => {
  t.same(turnLimits(undefined), defaultLimits);
  const l = turnLimits({ max_tool_rounds: 36, extension_enabled: true, extension_round_step: 4 });
  t.equal(l.plan_rounds, 32);
  t.equal(l.execute_rounds, 36);
  t.equal(l.extension_step, 4);
});

t.test(
  'a turn deferred to its provider retry_at ends nothing: no completion, the seat takes wakes',
  async (t) => {
    const deferred: SeatEvent = { type: 'seat.turn.deferred', turn_id: 'turn-1', retry_at: at(30) };
    const { snap, effects } = when(given(), woke, deferred);
    t.same(types(effects), ['runPhase', 'deferTurn']);
    t.same(effects[1]!.params, { turn_id: 'turn-1', retry_at: at(30) });
    t.ok(snap.matches('idle'));
    t.equal(snap.context.turn, null);
    const stale = when(given(), woke, { ...deferred, turn_id: 'other' });
    t.ok(stale.snap.matches({ working: 'plan' }), "another turn's deferral is ignored");
    const pausedMeanwhile = when(
      given(),
      woke,
      { type: 'seat.pause', paused: { by: 'op', at: at(1), reason: 'x', stop_running: false } },
      deferred,
    );
    t.ok(pausedMeanwhile.snap.matches({ stopped: 'paused' }));
  },
);
