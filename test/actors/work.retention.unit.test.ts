import t from 'tap';
import { decideRetention, type RetentionContext } from '../../actors/work/work.retention.decide.js';
import { firstOwed, heldByEffects } from '../../actors/work/work.retention.trim.js';
import { foldHead, foldRetention, formatPosition, type RetentionState } from '../../schema/index.js';
import { emptyRetentionState } from '../../schema/work/retention.state.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 9, 0, s));

/** A log whose node-0 acknowledged `seq` at second `ackedAt`, with the head at `head`. */
function log(seq: number, ackedAt: number, head: number): RetentionState {
  const state = emptyRetentionState();
  const record = {
    kind: 'retention.node_acked',
    op_id: 'h',
    at: at(ackedAt).toISOString(),
    actor: 'node-0',
    node: 'node-0',
    generation: 1,
    seq,
  } as const;
  foldRetention(state, record, seq + 1, formatPosition(seq + 1));
  foldHead(state, head, false);
  return state;
}

const evict = (state: RetentionState, ctx: RetentionContext) =>
  decideRetention(
    state,
    { op_id: 'e', actor: 'ops', gesture: { kind: 'evict', holder: 'node-0', reason: '' } },
    ctx,
  );
const refusedWith = (r: ReturnType<typeof evict>) => ('refused' in r ? r.refused.error : null);

t.test('a live node is current at the head, or within 30 s of its last heartbeat', async (t) => {
  const live = new Set(['node-0']);
  t.equal(refusedWith(evict(log(5, 0, 5), { live, now: at(50), seq: 6 })), 'member_live', 'at the head');
  t.equal(
    refusedWith(evict(log(4, 0, 5), { live, now: at(29), seq: 6 })),
    'member_live',
    'behind, heard 29 s ago',
  );
  t.equal(
    refusedWith(evict(log(4, 0, 5), { live, now: at(31), seq: 6 })),
    null,
    'behind, silent 31 s: lagging',
  );
  t.equal(refusedWith(evict(log(5, 0, 5), { live: new Set(), now: at(1), seq: 6 })), null, 'departed');
  t.equal(
    refusedWith(evict(log(5, 0, 5), { live: null, now: at(1), seq: 6 })),
    'member_live',
    'an unreadable fleet counts it live',
  );
});

t.test('a live node idle for long is current while what it lacks was written under 30 s ago', async (t) => {
  const live = new Set(['node-0']);
  // Heard at second 0, idle since; a write at second 100 moved the head past it.
  t.equal(
    refusedWith(evict(log(4, 0, 5), { live, now: at(105), seq: 6, lackingSinceMs: at(100).getTime() })),
    'member_live',
    'between two heartbeats after a write: not lagging',
  );
  t.equal(
    refusedWith(evict(log(4, 0, 5), { live, now: at(131), seq: 6, lackingSinceMs: at(100).getTime() })),
    null,
    'still lacking it 31 s after it was written: lagging',
  );
  t.equal(
    refusedWith(evict(log(4, 0, 5), { live, now: at(131), seq: 6, lackingSinceMs: null })),
    'member_live',
    'only heartbeats past it: it lacks nothing',
  );
});

t.test('a node acknowledged in an earlier generation is neither current nor readmitted', async (t) => {
  const state = log(5, 0, 5);
  foldRetention(
    state,
    {
      kind: 'retention.evicted',
      op_id: 'e1',
      at: at(1).toISOString(),
      actor: 'ops',
      holder: 'node-0',
      reason: '',
    },
    7,
    formatPosition(7),
  );
  foldRetention(
    state,
    {
      kind: 'retention.reanchored',
      op_id: 'r1',
      at: at(2).toISOString(),
      actor: 'ops',
      generation: 2,
      reason: 'x',
    },
    8,
    formatPosition(8),
  );
  t.equal(state.generation, 2);
  const readmit = decideRetention(
    state,
    { op_id: 'a', actor: 'ops', gesture: { kind: 'readmit', holder: 'node-0' } },
    { live: new Set(['node-0']), now: at(3), seq: 8 },
  );
  t.equal(refusedWith(readmit), 'position_trimmed');
  const again = emptyRetentionState();
  foldRetention(
    again,
    {
      kind: 'retention.reanchored',
      op_id: 'r1',
      at: at(2).toISOString(),
      actor: 'ops',
      generation: 1,
      reason: 'x',
    },
    3,
    formatPosition(3),
  );
  t.equal(again.generation, 1, 'a reanchor that does not move the generation forward is ignored by the fold');
});

t.test('a gesture that changes nothing is refused with a problem saying what', async (t) => {
  const r = decideRetention(
    log(5, 0, 5),
    { op_id: 'r', actor: 'ops', gesture: { kind: 'readmit', holder: 'node-0' } },
    { live: null, now: at(1), seq: 6 },
  );
  t.ok('refused' in r);
  if (!('refused' in r)) return;
  t.equal(r.refused.error, 'validation_error');
  t.match(r.refused.problems, [{ path: '', message: /^changes nothing: node-0 is admitted/ }]);
});

t.test('a trim stays below the first project record the effects consumer has not acknowledged', async (t) => {
  const candidate = (seq: number, subject: string) => ({ seq, subject, bytes: 10, time: 0 });
  const candidates = [
    candidate(3, 'svc.work.p.ENG'),
    candidate(4, 'svc.work.retention.ack.node-0'),
    candidate(5, 'svc.work.u.ada'),
    candidate(6, 'svc.work.p.ENG'),
    candidate(7, 'svc.work.p.OPS'),
  ];
  t.equal(firstOwed(candidates, null), null, 'no effects consumer: nothing is owed');
  t.same(firstOwed(candidates, 3), { seq: 6, ackFloor: 3 }, 'records its filter skips are not owed');
  t.same(firstOwed(candidates, 1), { seq: 3, ackFloor: 1 });
  t.equal(firstOwed(candidates, 7), null, 'everything acknowledged');
  const plan = { below: 8, removed: { records: 5, bytes: 50 }, firstKept: null };
  t.equal(heldByEffects(plan, 3, null), null);
  t.equal(heldByEffects(plan, 3, { seq: 6, ackFloor: 3 }), 6, 'held below the owed record');
  t.equal(
    heldByEffects({ ...plan, below: 6 }, 3, { seq: 6, ackFloor: 3 }),
    null,
    'a plan that stops before it',
  );
  const refused = heldByEffects(plan, 3, { seq: 3, ackFloor: 1 });
  t.match(refused, {
    refused: {
      error: 'nothing_to_trim',
      detail:
        /^the effects consumer work_effects has acknowledged up to 1 and the log starts at 3: .*record 3/,
    },
  });
});
