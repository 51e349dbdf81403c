import t from 'tap';
import { getInitialSnapshot } from 'xstate';
import {
  seatMachine,
  type DeadlineBreach,
  type SeatEvent,
  type Wake,
} from '../../actors/seat/seat.machine.js';
import { armDeadline, deadlineBreach, deadlineOf, isExpired } from '../../actors/seat/turn.deadline.js';
import { ScheduledTimeoutBreach, type ScheduleWake } from '../../schema/index.js';
import { at, when, type Effect, type Snap } from './seat/machine.fixture.js';

const scheduled: ScheduleWake = {
  scope_type: 'role',
  scope_id: 'ada',
  schedule_name: 'nightly',
  task: 'tidy up',
  target: 'each',
  scheduled_at: at(0),
  fired_at: at(0),
  timeout_seconds: 30,
  deadline: at(30),
};
const wake: Wake = {
  id: 'w1',
  kind: 'schedule',
  source: 'node-0/scheduler',
  summary: 'schedule nightly: tidy up',
  trace_id: 't',
  payload: scheduled,
};
const deadline = deadlineOf(scheduled)!;
const breachAt = (s: number, queued: boolean): DeadlineBreach =>
  deadlineBreach(deadline, { targetHandle: 'ada', turnId: 'turn-1', at: new Date(at(s)), queued });

const idle = (): Snap => getInitialSnapshot(seatMachine, { handle: 'ada' });
const woke: SeatEvent = { type: 'seat.wake', wake, turn_id: 'turn-1', at: at(1) };
const overdue = (turn_id = 'turn-1'): SeatEvent => ({
  type: 'seat.deadline',
  turn_id,
  at: at(31),
  expired: breachAt(31, false),
});
const types = (effects: Effect[]): string[] => effects.map((e) => e.type);

t.test('a scheduled turn that reaches its deadline fails with scheduled_timeout at once', async (t) => {
  const planned: SeatEvent = {
    type: 'seat.phase.done',
    turn_id: 'turn-1',
    tokens: 10,
    at: at(5),
    outcome: { phase: 'plan', decision: 'plan', plan: 'steps' },
  };
  const { snap, effects } = when(idle(), woke, planned, overdue());
  t.ok(snap.matches('idle'), 'the turn ended without waiting for the running phase');
  // The abort goes first: the running phase's live view closes on it, before the breach is stamped.
  t.same(types(effects), ['runPhase', 'runPhase', 'abortTurn', 'guardBreach', 'completeTurn']);
  const breach = ScheduledTimeoutBreach.parse(effects[3]!.params);
  t.match(breach, {
    kind: 'scheduled_timeout',
    turn_id: 'turn-1',
    target_handle: 'ada',
    schedule_name: 'nightly',
    timeout_seconds: 30,
    deadline: at(30),
    at: at(31),
  });
  t.match(effects[2]!.params, { turn_id: 'turn-1', reason: /^scheduled_timeout: / });
  t.match(effects[4]!.params, {
    payload: {
      failed: true,
      error: /^scheduled_timeout: schedule nightly allows 30 s/,
      phases: ['plan', 'execute'],
      total_tokens: 10,
      ended_at: at(31),
    },
    stopped: 'error',
  });

  // The aborted phase reports back later: it belongs to a finished turn and changes nothing.
  const late = when(snap, {
    type: 'seat.phase.failed',
    turn_id: 'turn-1',
    phase: 'execute',
    tokens: 0,
    at: at(32),
    reason: 'aborted',
    error: 'x',
  });
  t.ok(late.snap.matches('idle'));
  t.same(late.effects, []);
});

t.test('a deadline for a turn that already ended, or for another turn, is ignored', async (t) => {
  const skipped: SeatEvent = {
    type: 'seat.phase.done',
    turn_id: 'turn-1',
    tokens: 1,
    at: at(2),
    outcome: { phase: 'plan', decision: 'skip', plan: '' },
  };
  const ended = when(idle(), woke, skipped, overdue());
  t.ok(ended.snap.matches('idle'));
  t.same(types(ended.effects), ['runPhase', 'completeTurn']);

  const other = when(idle(), woke, overdue('turn-0'));
  t.ok(other.snap.matches({ working: 'plan' }));
  t.same(types(other.effects), ['runPhase']);
});

t.test('a wake taken after its deadline ends the turn without running a phase', async (t) => {
  const expired: SeatEvent = { ...woke, at: at(40), expired: breachAt(40, true) };
  const { snap, effects } = when(idle(), expired);
  t.ok(snap.matches('idle'));
  t.same(types(effects), ['guardBreach', 'completeTurn']);
  t.match(effects[1]!.params, {
    payload: { failed: true, phases: [], total_tokens: 0, error: /before the turn could start/ },
  });

  // A seat stopped for its budget takes wakes too; an expired one fails the same way.
  const budgetStopped = when(idle(), woke, {
    type: 'seat.phase.failed',
    turn_id: 'turn-1',
    phase: 'plan',
    tokens: 0,
    at: at(2),
    reason: 'budget',
    error: 'budget exhausted',
  }).snap;
  t.ok(budgetStopped.matches({ stopped: 'budget' }));
  const again = when(budgetStopped, { ...expired, turn_id: 'turn-2' });
  t.same(types(again.effects), ['guardBreach', 'completeTurn']);
});

t.test('a paused seat whose running turn reaches its deadline stays paused', async (t) => {
  const paused = { by: 'op', at: at(2), reason: 'look', stop_running: false };
  const { snap, effects } = when(idle(), woke, { type: 'seat.pause', paused }, overdue());
  t.ok(snap.matches({ stopped: 'paused' }));
  t.same(types(effects), ['runPhase', 'announcePaused', 'abortTurn', 'guardBreach', 'completeTurn']);
});

t.test('only a ScheduleWake payload with a deadline bounds a turn', async (t) => {
  t.equal(deadlineOf({}), null);
  t.equal(deadlineOf({ ...scheduled, timeout_seconds: null, deadline: null }), null);
  t.equal(deadlineOf({ ...scheduled, deadline: 'tomorrow' }), null);
  t.equal(deadline.at.toISOString(), at(30));
  t.notOk(isExpired(deadline, new Date(at(30))), 'at the deadline itself there is still time');
  t.ok(isExpired(deadline, new Date(at(31))));
});

t.test('an armed deadline fires once it is reached; a disarmed one never fires', async (t) => {
  const fired: string[] = [];
  const soon = (ms: number) => ({ ...deadline, at: new Date(Date.now() + ms) });
  const disarm = armDeadline(
    soon(5),
    () => new Date(),
    () => fired.push('disarmed'),
  );
  disarm();
  // A later deadline fires after the earlier, disarmed one would have.
  await new Promise<void>((resolve) =>
    armDeadline(
      soon(30),
      () => new Date(),
      () => {
        fired.push('armed');
        resolve();
      },
    ),
  );
  t.same(fired, ['armed']);
  // A deadline already behind the clock fires on the next turn of the event loop.
  await new Promise<void>((resolve) => armDeadline(soon(-1000), () => new Date(), resolve));
});

t.test('a resumed turn past its deadline is not said to have failed before it started', async (t) => {
  const resumed = deadlineBreach(deadline, {
    targetHandle: 'ada',
    turnId: 'turn-1',
    at: new Date(at(40)),
    queued: true,
    resumed: true,
  });
  t.match(resumed.error, /passed while the turn was cut, before it could resume$/);
  t.match(breachAt(40, true).error, /passed before the turn could start$/);
});
