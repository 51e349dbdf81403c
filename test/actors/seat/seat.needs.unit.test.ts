/**
 * The seat's open needs as machine state, given/when/then on `transition()`: a recorded need waits in
 * the context whatever the seat is doing, every completion carries it (its own turn's first) while it is
 * open, and only a closing record (answered, withdrawn, cleared) lets it go. A seat started from its
 * log's fold holds the same.
 */
import t from 'tap';
import { getInitialSnapshot } from 'xstate';
import { seatMachine, type SeatEvent } from '../../../actors/seat/seat.machine.js';
import { answeredBy, roomForNeed, turnNeeds } from '../../../actors/seat/seat.needs.js';
import {
  foldNeeds,
  needsEventOf,
  NEEDS_KEPT_PER_SEAT,
  type SeatLogEntry,
  type SeatNeed,
} from '../../../schema/index.js';
import { at, wake, when, type Effect, type Snap } from './machine.fixture.js';

const need = (id: string, over: Partial<SeatNeed> = {}): SeatNeed => ({
  id,
  to: 'hu',
  question: `question ${id}`,
  context: null,
  urgency: 'normal',
  asked_at: at(0),
  turn_id: 'turn-1',
  ...over,
});
const woke = (turn_id = 'turn-1'): SeatEvent => ({ type: 'seat.wake', wake, turn_id, at: at(0) });
const skipped = (turn_id = 'turn-1'): SeatEvent => ({
  type: 'seat.phase.done',
  turn_id,
  tokens: 1,
  at: at(1),
  outcome: { phase: 'plan', decision: 'skip', plan: '' },
});
const recorded = (n: SeatNeed): SeatEvent => ({ type: 'seat.need.recorded', need: n });
const closed = (ids: string[]): SeatEvent => ({ type: 'seat.needs.closed', ids });

function given(needs: readonly SeatNeed[] = []): Snap {
  return getInitialSnapshot(seatMachine, { handle: 'ada', needs });
}

const ids = (needs: readonly SeatNeed[]): string[] => needs.map((n) => n.id);
const completion = (effects: Effect[]) =>
  effects.find((e) => e.type === 'completeTurn')?.params as { needs: SeatNeed[] } | undefined;

t.test('a need recorded mid-turn is carried by every completion until it is closed', async (t) => {
  const { snap, effects } = when(given(), woke(), recorded(need('a1')), skipped());
  t.ok(snap.matches('idle'));
  t.same(ids(completion(effects)!.needs), ['a1'], 'the completion carries it');
  t.same(ids(snap.context.needs), ['a1'], 'the seat still waits');
  // An unrelated wake whose turn decides skip: the question is still open, and said so again.
  const unrelated = when(snap, woke('turn-2'), skipped('turn-2'));
  t.same(ids(completion(unrelated.effects)!.needs), ['a1'], 'a skip turn leaves it open');
  t.same(ids(unrelated.snap.context.needs), ['a1']);
  const after = when(unrelated.snap, closed(['a1']));
  t.same(after.snap.context.needs, [], 'closed: gone');
  t.same(after.effects, [], 'closing runs no effect');
  const next = when(after.snap, woke('turn-3'), skipped('turn-3'));
  t.same(completion(next.effects)!.needs, [], 'the next completion carries nothing');
});

t.test('a wake from the asked human answers their questions, not the others’', async (t) => {
  const open = [need('a1', { to: 'hu' }), need('b1', { to: 'eve' }), need('a2', { to: 'hu' })];
  t.same(answeredBy(open, 'hu'), ['a1', 'a2']);
  t.same(answeredBy(open, 'zed'), [], 'someone not asked answers nothing');
  const { snap } = when(given(open), closed(answeredBy(open, 'hu')));
  t.same(ids(snap.context.needs), ['b1']);
});

t.test('needs are recorded whatever the seat is doing, and a turn takes its own first', async (t) => {
  const paused = { by: 'op', at: at(0), reason: 'x', stop_running: false };
  const idle = when(given(), recorded(need('outside', { turn_id: null })));
  t.same(ids(idle.snap.context.needs), ['outside'], 'idle');
  const stopped = when(idle.snap, { type: 'seat.pause', paused }, recorded(need('while-paused')));
  t.ok(stopped.snap.matches({ stopped: 'paused' }));
  t.same(ids(stopped.snap.context.needs), ['outside', 'while-paused'], 'paused');
  const { effects } = when(
    stopped.snap,
    { type: 'seat.resume', by: 'op', at: at(1) },
    woke('turn-2'),
    recorded(need('mine', { turn_id: 'turn-2' })),
    skipped('turn-2'),
  );
  t.same(ids(completion(effects)!.needs), ['mine', 'outside', 'while-paused']);
});

t.test('a 17th open question has no room; a retried one already open always has', async (t) => {
  const full = Array.from({ length: NEEDS_KEPT_PER_SEAT }, (_, i) => need(`n${i}`));
  t.ok(roomForNeed(full.slice(1), need('new')), '15 open: room');
  t.notOk(roomForNeed(full, need('new')), '16 open: no room for a new one');
  t.ok(roomForNeed(full, need('n0')), 'the same need again (a retried call) is no new question');
  t.ok(roomForNeed([], need('a')), 'none open: room');
});

t.test(
  'a need asked again (a builtin retried after a cut) is held once; a log from before the refusal past 16 keeps the newest 16',
  async (t) => {
    const { snap } = when(given(), recorded(need('a1')), recorded(need('a1', { question: 'again' })));
    t.same(snap.context.needs, [need('a1')], 'kept once, as first asked');
    const many = when(
      given(),
      ...Array.from({ length: NEEDS_KEPT_PER_SEAT + 3 }, (_, i) => recorded(need(`n${i}`))),
    );
    t.equal(many.snap.context.needs.length, NEEDS_KEPT_PER_SEAT);
    t.equal(many.snap.context.needs[0]!.id, 'n3');
  },
);

t.test('closing ids that are not open changes nothing', async (t) => {
  const first = when(given(), recorded(need('a1')));
  const { snap } = when(first.snap, closed(['zz']));
  t.equal(snap.context.needs, first.snap.context.needs, 'the same state');
});

t.test('a seat started from its log’s fold holds what the running seat held', async (t) => {
  const log: SeatLogEntry[] = [
    { kind: 'need_recorded', need: need('a1') },
    { kind: 'need_recorded', need: need('a2', { urgency: 'high' }) },
    // Written by earlier releases: what it names is no longer open.
    { kind: 'needs_taken', turn_id: 'turn-1', ids: ['a1'] },
    { kind: 'need_recorded', need: need('a3', { turn_id: 'turn-2' }) },
    { kind: 'need_recorded', need: need('a4', { to: 'eve' }) },
    {
      kind: 'needs_closed',
      cause: 'answered',
      ids: ['a4'],
      by: 'eve',
      key: 'answered:w9',
      turn_id: 'turn-2',
    },
  ];
  const live = when(given(), ...log.map(needsEventOf));
  const rebuilt = given(log.map(needsEventOf).reduce(foldNeeds, [] as readonly SeatNeed[]));
  t.same(rebuilt.context.needs, live.snap.context.needs);
  t.same(ids(rebuilt.context.needs), ['a2', 'a3']);
  // And its next completion tells the same wait.
  const { effects } = when(rebuilt, woke('turn-3'), skipped('turn-3'));
  t.same(turnNeeds(completion(effects)!.needs), {
    reason: 'question a2 (and 1 more question)',
    audience: 'hu',
    ids: ['a2', 'a3'],
  });
});

t.test('the completion needs name the most urgent question and every audience', async (t) => {
  t.equal(turnNeeds([]), null);
  t.same(turnNeeds([need('a')]), { reason: 'question a', audience: 'hu', ids: ['a'] });
  t.same(
    turnNeeds([
      need('a', { urgency: 'high', to: 'hu' }),
      need('b', { to: 'eve' }),
      need('c', { urgency: 'high', to: 'hu' }),
    ]),
    { reason: 'question c (and 2 more questions)', audience: 'hu, eve', ids: ['a', 'b', 'c'] },
  );
});
