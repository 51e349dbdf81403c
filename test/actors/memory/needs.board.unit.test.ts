import t from 'tap';
import { createNeedsBoard, NEEDS_KEPT_PER_SEAT, turnNeeds, type Need } from '../../../actors/index.js';

const need = (id: string, over: Partial<Need> = {}): Need => ({
  id,
  to: 'hu',
  question: `question ${id}`,
  context: null,
  urgency: 'normal',
  asked_at: '2026-05-01T12:00:00.000Z',
  turn_id: 'turn-1',
  ...over,
});

t.test("a turn takes its own needs and the seat's needs asked outside a turn, once", async (t) => {
  const board = createNeedsBoard();
  await board.recordNeed('ada', need('outside', { turn_id: null }));
  await board.recordNeed('ada', need('mine'));
  await board.recordNeed('bob', need('bobs'));
  t.same(
    board.take('ada', 'turn-1').map((n) => n.id),
    ['mine', 'outside'],
  );
  t.same(board.take('ada', 'turn-2'), [], 'taken needs are gone');
  t.same(
    board.take('bob', 'turn-9').map((n) => n.id),
    ['bobs'],
    'a need of an ended turn is carried by the next',
  );
});

t.test('a seat keeps only its newest needs between two turns', async (t) => {
  const board = createNeedsBoard();
  for (let i = 0; i < NEEDS_KEPT_PER_SEAT + 4; i += 1) await board.recordNeed('ada', need(`n${i}`));
  const taken = board.take('ada', 'turn-1');
  t.equal(taken.length, NEEDS_KEPT_PER_SEAT);
  t.equal(taken[0]!.id, 'n4');
});

t.test('the completion needs name the most urgent question and every audience', async (t) => {
  t.equal(turnNeeds([]), null);
  t.same(turnNeeds([need('a')]), { reason: 'question a', audience: 'hu' });
  t.same(
    turnNeeds([
      need('a', { urgency: 'high', to: 'hu' }),
      need('b', { to: 'eve' }),
      need('c', { urgency: 'high', to: 'hu' }),
    ]),
    { reason: 'question c (and 2 more questions)', audience: 'hu, eve' },
  );
});
