/** One revision's lifecycle as given / when / then on `transition()`: stored → active → superseded. */
import t from 'tap';
import { initialTransition, transition } from 'xstate';
import { revisionMachine, revisionStatus, type RevisionEvent } from '../../../actors/index.js';

const ID = '00000000-0000-4000-8000-000000000001';
const NEXT = '00000000-0000-4000-8000-000000000002';

function given(...events: RevisionEvent[]) {
  let [snapshot] = initialTransition(revisionMachine, { revision_id: ID });
  for (const event of events) [snapshot] = transition(revisionMachine, snapshot, event);
  return {
    then: revisionStatus(snapshot),
    when: (event: RevisionEvent) => revisionStatus(transition(revisionMachine, snapshot, event)[0]),
  };
}

const activated = (epoch: number): RevisionEvent => ({
  type: 'revision.activated',
  epoch,
  activated_at: '2026-01-01T00:00:00.000Z',
});
const applied = (
  node: string,
  status: 'applied' | 'unchanged' | 'failed',
  epoch = 1,
  error?: string,
): RevisionEvent => ({
  type: 'revision.applied',
  node,
  apply: { status, epoch, at: '2026-01-01T00:00:01.000Z', ...(error ? { error } : {}) },
});

t.test('a revision starts stored, without an epoch', async (t) => {
  t.same(given().then, { revision_id: ID, state: 'stored', epoch: null, superseded_by: null, nodes: {} });
});

t.test('winning an epoch makes it active at that epoch', async (t) => {
  t.match(given().when(activated(3)), { state: 'active', epoch: 3 });
});

t.test('each node applying it is recorded: applied, unchanged or failed with its error', async (t) => {
  const then = given(activated(1), applied('a', 'applied')).when(applied('b', 'failed', 1, 'providers: x'));
  t.same(then.nodes, {
    a: { status: 'applied', epoch: 1, at: '2026-01-01T00:00:01.000Z' },
    b: { status: 'failed', epoch: 1, at: '2026-01-01T00:00:01.000Z', error: 'providers: x' },
  });
  t.equal(then.state, 'active', 'a failure on a node leaves the revision active');
});

t.test('a node applying it again replaces its outcome (a restart re-applies)', async (t) => {
  t.match(given(activated(1), applied('a', 'failed')).when(applied('a', 'applied')).nodes, {
    a: { status: 'applied' },
  });
});

t.test('a newer epoch supersedes it; late announcements still count', async (t) => {
  const superseded = given(activated(1)).when({ type: 'revision.superseded', by: NEXT, epoch: 2 });
  t.match(superseded, { state: 'superseded', epoch: 1, superseded_by: NEXT });
  t.match(
    given(activated(1), { type: 'revision.superseded', by: NEXT, epoch: 2 }).when(applied('c', 'applied')),
    { state: 'superseded', nodes: { c: { status: 'applied' } } },
  );
});

t.test('a stored revision is not superseded, and a superseded one never becomes active again', async (t) => {
  t.match(given().when({ type: 'revision.superseded', by: NEXT, epoch: 2 }), { state: 'stored' });
  t.match(given(activated(1), { type: 'revision.superseded', by: NEXT, epoch: 2 }).when(activated(3)), {
    state: 'superseded',
    epoch: 1,
  });
  t.match(given(activated(1)).when(activated(5)), { state: 'active', epoch: 1 }, 'one epoch per revision');
});
