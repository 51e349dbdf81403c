/**
 * The node machine as given / when / then on `transition()`: the events so far, one more, then the
 * view the probes read and the effects the machine names for its host (`apply`, `announce`).
 */
import t from 'tap';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import {
  nodeMachine,
  viewOf,
  type Announcement,
  type ApplyRequest,
  type NodeEvent,
  type NodeHistory,
  type NodeView,
} from '../../../actors/index.js';

type Snapshot = SnapshotFrom<typeof nodeMachine>;
interface Then {
  view: NodeView;
  apply: ApplyRequest[];
  announce: Announcement[];
  snapshot: Snapshot;
}

function given(...events: NodeEvent[]): { when(event: NodeEvent): Then; then: NodeView } {
  let [snapshot] = initialTransition(nodeMachine);
  for (const event of events) [snapshot] = transition(nodeMachine, snapshot, event);
  return {
    then: viewOf(snapshot),
    when(event) {
      const [next, actions] = transition(nodeMachine, snapshot, event);
      const apply: ApplyRequest[] = [];
      const announce: Announcement[] = [];
      for (const action of actions) {
        if (action.type === 'apply') apply.push(action.params as ApplyRequest);
        if (action.type === 'announce') announce.push(action.params as Announcement);
      }
      return { view: viewOf(next), apply, announce, snapshot: next };
    },
  };
}

const R = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const booted = (history?: NodeHistory): NodeEvent => ({
  type: 'node.booted',
  ...(history ? { history } : {}),
});
const reconcile = (epoch: number | null): NodeEvent => ({
  type: 'node.reconcile',
  active: epoch === null ? null : { epoch, revision_id: R(epoch) },
});
const done = (
  epoch: number,
  outcome: Extract<NodeEvent, { type: 'node.apply.done' }>['outcome'],
  subsystems: string[] = [],
  error?: string,
): NodeEvent => ({
  type: 'node.apply.done',
  epoch,
  revision_id: R(epoch),
  outcome,
  subsystems,
  ...(error ? { error } : {}),
});
/** A node serving epoch `n` (applied in this process). */
const servingAt = (n: number): NodeEvent[] => [booted(), reconcile(n), done(n, 'applied', ['org'])];

t.test('a node that boots is unconfigured until a revision is active', async (t) => {
  t.match(given().when(booted()).view, { phase: 'unconfigured', configured: false, appliedEpoch: 0 });
  const then = given(booted()).when(reconcile(null));
  t.same(then.apply, [], 'nothing active: nothing to apply');
});

t.test('an active revision is applied: the node waits, then serves at that epoch', async (t) => {
  const started = given(booted()).when(reconcile(1));
  t.same(started.apply, [{ epoch: 1, revision_id: R(1), restore: false }]);
  t.match(started.view, { phase: 'unconfigured', posture: 'wait', appliedEpoch: 0 });
  const ended = given(booted(), reconcile(1)).when(done(1, 'applied', ['org', 'budgets']));
  t.match(ended.view, { phase: 'serving', configured: true, posture: 'serve', appliedEpoch: 1 });
  t.same(ended.announce, [
    { epoch: 1, revision_id: R(1), status: 'applied', applied_subsystems: ['org', 'budgets'] },
  ]);
});

t.test(
  'an apply in flight is not started twice, and an epoch already applied is not applied again',
  async (t) => {
    t.same(given(booted(), reconcile(1)).when(reconcile(2)).apply, [], 'one apply at a time');
    t.same(given(...servingAt(3)).when(reconcile(3)).apply, [], 'epoch 3 is applied');
    t.same(given(...servingAt(3)).when(reconcile(4)).apply, [
      { epoch: 4, revision_id: R(4), restore: false },
    ]);
  },
);

t.test(
  'a serving node applying a newer epoch reads wait, then serve; unchanged announces unchanged',
  async (t) => {
    t.match(given(...servingAt(3)).when(reconcile(4)).view, {
      phase: 'serving',
      posture: 'wait',
      appliedEpoch: 3,
    });
    const then = given(...servingAt(3), reconcile(4)).when(done(4, 'unchanged'));
    t.match(then.view, { posture: 'serve', appliedEpoch: 4 });
    t.match(then.announce, [{ epoch: 4, status: 'unchanged', applied_subsystems: [] }]);
  },
);

t.test('a failed apply keeps the applied epoch where it was; the posture comes from the table', async (t) => {
  const rolledBack = given(...servingAt(3), reconcile(4)).when(
    done(4, 'rolled_back', ['org'], 'providers: rejected'),
  );
  t.match(rolledBack.view, { phase: 'serving', posture: 'isolated', appliedEpoch: 3 });
  t.same(rolledBack.announce, [
    {
      epoch: 4,
      revision_id: R(4),
      status: 'failed',
      applied_subsystems: ['org'],
      error: 'providers: rejected',
      posture: 'isolated',
    },
  ]);
  const stuck = given(...servingAt(3), reconcile(4)).when(done(4, 'rollback_failed', ['org'], 'x'));
  t.match(stuck.view, { posture: 'stuck', appliedEpoch: 3 });
  t.match(stuck.announce, [{ status: 'failed', posture: 'stuck' }]);
  t.match(given(...servingAt(3), reconcile(4)).when(done(4, 'unopenable', [], 'key')).view, {
    posture: 'stuck',
    appliedEpoch: 3,
  });
});

t.test('a failed epoch is not tried again; the next activation is', async (t) => {
  const failed = [...servingAt(3), reconcile(4), done(4, 'rolled_back', [], 'x')];
  t.same(given(...failed).when(reconcile(4)).apply, [], 'the reconcile tick leaves epoch 4 alone');
  t.same(given(...failed).when(reconcile(5)).apply, [{ epoch: 5, revision_id: R(5), restore: false }]);
  t.match(given(...failed, reconcile(5)).when(done(5, 'applied')).view, {
    posture: 'serve',
    appliedEpoch: 5,
  });
});

t.test(
  'a first apply that fails leaves the node unconfigured and stuck; it is retried every tick, announced once',
  async (t) => {
    const then = given(booted(), reconcile(1)).when(done(1, 'rolled_back', [], 'x'));
    t.match(then.view, { phase: 'unconfigured', configured: false, posture: 'stuck', appliedEpoch: 0 });
    t.match(then.announce, [{ epoch: 1, status: 'failed', posture: 'stuck' }]);
    const failed = [booted(), reconcile(1), done(1, 'rolled_back', [], 'x')];
    const retry = given(...failed).when(reconcile(1));
    t.same(retry.apply, [{ epoch: 1, revision_id: R(1), restore: false }], 'tried again on the tick');
    t.match(retry.view, { posture: 'stuck' }, 'stuck while the retry runs');
    const again = given(...failed, reconcile(1)).when(done(1, 'rolled_back', [], 'x'));
    t.match(again.view, { posture: 'stuck' });
    t.same(again.announce, [], 'the same failure again is not announced again');
    const other = given(...failed, reconcile(1)).when(done(1, 'unopenable', [], 'key'));
    t.same(other.announce, [], 'nor a failure leaving the same posture');
    const healed = given(...failed, reconcile(1)).when(done(1, 'applied', ['org']));
    t.match(healed.view, { phase: 'serving', configured: true, posture: 'serve', appliedEpoch: 1 });
    t.match(healed.announce, [{ epoch: 1, status: 'applied' }]);
  },
);

t.test(
  'a restarted node whose own last-applied epoch fails to apply is stuck, records it and retries it',
  async (t) => {
    const history: NodeHistory = { applied: { epoch: 3, revision_id: R(3) }, failed: null };
    const then = given(booted(history), reconcile(3)).when(
      done(3, 'rolled_back', ['org'], 'tool_servers: x'),
    );
    t.match(then.view, { phase: 'unconfigured', configured: false, posture: 'stuck', appliedEpoch: 0 });
    t.same(then.announce, [
      {
        epoch: 3,
        revision_id: R(3),
        status: 'failed',
        applied_subsystems: ['org'],
        error: 'tool_servers: x',
        posture: 'stuck',
      },
    ]);
    t.match(then.snapshot.context.history, { failed: { epoch: 3, posture: 'stuck' } }, 'in its history');
    const failed = [booted(history), reconcile(3), done(3, 'rolled_back', [], 'x')];
    t.same(given(...failed).when(reconcile(3)).apply, [{ epoch: 3, revision_id: R(3), restore: false }]);
    t.same(given(...failed, reconcile(3)).when(done(3, 'rolled_back', [], 'x')).announce, []);
    t.match(given(...failed, reconcile(3)).when(done(3, 'applied')).view, {
      phase: 'serving',
      posture: 'serve',
      appliedEpoch: 3,
    });
    // The next start reads that history: the same epoch is retried, never "restored".
    const recorded: NodeHistory = { ...history, failed: { epoch: 3, revision_id: R(3), posture: 'stuck' } };
    const next = given(booted(recorded)).when(reconcile(3));
    t.same(next.apply, [{ epoch: 3, revision_id: R(3), restore: false }]);
    t.same(
      given(booted(recorded), reconcile(3)).when(done(3, 'rolled_back', [], 'x')).announce.length,
      1,
      'announced once by each start',
    );
    t.same(given(booted(recorded)).when(reconcile(4)).apply, [
      { epoch: 4, revision_id: R(4), restore: false },
    ]);
  },
);

t.test('a postponed apply returns to the posture it started from and announces nothing', async (t) => {
  const then = given(...servingAt(3), reconcile(4)).when(done(4, 'postponed'));
  t.match(then.view, { posture: 'serve', appliedEpoch: 3 });
  t.same(then.announce, []);
  t.same(given(...servingAt(3), reconcile(4), done(4, 'postponed')).when(reconcile(4)).apply, [
    { epoch: 4, revision_id: R(4), restore: false },
  ]);
});

t.test('an outcome for another apply than the running one changes nothing', async (t) => {
  const then = given(...servingAt(3), reconcile(4)).when(done(5, 'applied'));
  t.match(then.view, { posture: 'wait', appliedEpoch: 3 });
  t.same(then.announce, []);
});

t.test('lagging the fleet epoch sheds a serving node; an apply that succeeds serves again', async (t) => {
  t.match(given(...servingAt(3)).when({ type: 'node.lagged' }).view, { posture: 'shed' });
  t.match(given(...servingAt(3), reconcile(4), done(4, 'rolled_back')).when({ type: 'node.lagged' }).view, {
    posture: 'isolated',
  });
  const shed = [...servingAt(3), { type: 'node.lagged' } as NodeEvent];
  t.match(given(...shed, reconcile(4)).when(done(4, 'applied')).view, { posture: 'serve', appliedEpoch: 4 });
});

t.test(
  'a restarted node reads the posture its history ends in until an apply concludes, a postponed one too',
  async (t) => {
    const stuck: NodeHistory = {
      applied: { epoch: 3, revision_id: R(3) },
      failed: { epoch: 3, revision_id: R(3), posture: 'stuck' },
    };
    t.match(given().when(booted(stuck)).view, { phase: 'unconfigured', posture: 'stuck', appliedEpoch: 0 });
    t.match(given(booted(stuck)).when(reconcile(3)).view, { posture: 'stuck' }, 'stuck while it retries');
    t.match(given(booted(stuck), reconcile(3)).when(done(3, 'postponed')).view, { posture: 'stuck' });
    t.match(given(booted(stuck), reconcile(3)).when(done(3, 'applied')).view, {
      phase: 'serving',
      posture: 'serve',
    });
    const isolated: NodeHistory = {
      applied: { epoch: 3, revision_id: R(3) },
      failed: { epoch: 4, revision_id: R(4), posture: 'isolated' },
    };
    t.match(given().when(booted(isolated)).view, { posture: 'isolated' });
    t.match(given(booted(isolated), reconcile(4)).when(done(3, 'postponed')).view, {
      phase: 'unconfigured',
      posture: 'isolated',
    });
    const applied: NodeHistory = { applied: { epoch: 3, revision_id: R(3) }, failed: null };
    t.match(given().when(booted(applied)).view, { posture: 'serve' });
  },
);

t.test('a restarted node whose history ends in a failure brings back the revision it ran', async (t) => {
  const history: NodeHistory = {
    applied: { epoch: 3, revision_id: R(3) },
    failed: { epoch: 4, revision_id: R(4), posture: 'isolated' },
  };
  const restore = given(booted(history)).when(reconcile(4));
  t.same(restore.apply, [{ epoch: 3, revision_id: R(3), restore: true }], 'epoch 3 again, not the failed 4');
  const back = given(booted(history), reconcile(4)).when(done(3, 'applied', ['org']));
  t.match(back.view, { phase: 'serving', configured: true, posture: 'isolated', appliedEpoch: 3 });
  t.same(back.announce, [], 'a restore is no new apply: nothing is announced');
  t.same(given(booted(history), reconcile(4), done(3, 'applied')).when(reconcile(4)).apply, []);
  t.same(given(booted(history), reconcile(4), done(3, 'applied')).when(reconcile(5)).apply, [
    { epoch: 5, revision_id: R(5), restore: false },
  ]);
});

t.test('a restarted node whose last apply succeeded applies the active epoch afresh', async (t) => {
  const history: NodeHistory = { applied: { epoch: 3, revision_id: R(3) }, failed: null };
  t.same(given(booted(history)).when(reconcile(3)).apply, [{ epoch: 3, revision_id: R(3), restore: false }]);
  t.same(given(booted(history)).when(reconcile(5)).apply, [{ epoch: 5, revision_id: R(5), restore: false }]);
});

t.test('a restore that fails gives way to the active epoch', async (t) => {
  const history: NodeHistory = {
    applied: { epoch: 3, revision_id: R(3) },
    failed: { epoch: 4, revision_id: R(4), posture: 'stuck' },
  };
  const then = given(booted(history), reconcile(4)).when(done(3, 'rolled_back', [], 'x'));
  t.same(then.announce, []);
  t.match(then.view, { phase: 'unconfigured', appliedEpoch: 0 });
  t.same(given(booted(history), reconcile(4), done(3, 'rolled_back')).when(reconcile(4)).apply, [
    { epoch: 4, revision_id: R(4), restore: false },
  ]);
});

t.test('a first apply after a restart that fails brings back the revision ran before', async (t) => {
  const history: NodeHistory = { applied: { epoch: 3, revision_id: R(3) }, failed: null };
  const failed = [booted(history), reconcile(5), done(5, 'rolled_back', [], 'x')];
  t.same(given(...failed).when(reconcile(5)).apply, [{ epoch: 3, revision_id: R(3), restore: true }]);
  t.match(given(...failed, reconcile(5)).when(done(3, 'applied')).view, {
    phase: 'serving',
    posture: 'isolated',
    appliedEpoch: 3,
  });
});

t.test('a termination signal drains from any state, once, and drain ends stopped', async (t) => {
  t.match(given().when({ type: 'node.drain' }).view, { phase: 'draining' });
  t.match(given(booted()).when({ type: 'node.drain' }).view, { phase: 'draining', configured: false });
  const draining = [...servingAt(2), { type: 'node.drain' } as NodeEvent];
  t.match(given(...draining).when({ type: 'node.drain' }).view, { phase: 'draining', appliedEpoch: 2 });
  t.same(given(...draining).when(reconcile(9)).apply, [], 'no apply starts while draining');
  t.match(given(...draining).when({ type: 'node.stopped' }).view, { phase: 'stopped' });
});

t.test(
  'an apply that ends while the node drains is concluded and announced: the history holds what the log says',
  async (t) => {
    const applying = [...servingAt(2), reconcile(3), { type: 'node.drain' } as NodeEvent];
    const applied = given(...applying).when(done(3, 'applied', ['org']));
    t.match(applied.view, { phase: 'draining', appliedEpoch: 3, posture: 'serve' });
    t.same(applied.announce, [
      { epoch: 3, revision_id: R(3), status: 'applied', applied_subsystems: ['org'] },
    ]);
    const failed = given(...applying).when(done(3, 'rolled_back', ['org'], 'tool_servers: boom'));
    t.match(failed.view, { phase: 'draining', appliedEpoch: 2, posture: 'isolated' });
    t.match(failed.announce, [{ epoch: 3, status: 'failed', posture: 'isolated' }]);
    t.same(given(...applying).when(done(3, 'postponed')).announce, [], 'a postponed apply is no outcome');
    t.same(given(...applying).when(done(4, 'applied')).announce, [], 'only the apply in progress answers');
  },
);
