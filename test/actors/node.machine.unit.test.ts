import t from 'tap';
import { createActor } from 'xstate';
import { nodeMachine, viewOf, type NodeEvent } from '../../actors/index.js';

/** given events, then the flattened view. */
function after(...events: NodeEvent[]) {
  const actor = createActor(nodeMachine).start();
  for (const event of events) actor.send(event);
  const view = viewOf(actor.getSnapshot());
  actor.stop();
  return view;
}

t.test('a node that boots without an active revision is unconfigured', async (t) => {
  t.match(after({ type: 'node.booted', configured: false, appliedEpoch: 0 }), {
    phase: 'unconfigured',
    configured: false,
  });
});

t.test('the first applied revision moves an unconfigured node to serving with posture serve', async (t) => {
  t.match(
    after(
      { type: 'node.booted', configured: false, appliedEpoch: 0 },
      { type: 'node.apply.started', epoch: 1 },
      { type: 'node.apply.succeeded', epoch: 1 },
    ),
    { phase: 'serving', posture: 'serve', configured: true, appliedEpoch: 1 },
  );
});

t.test('an apply moves serve to wait, and back to serve when it succeeds', async (t) => {
  const booted: NodeEvent = { type: 'node.booted', configured: true, appliedEpoch: 3 };
  t.match(after(booted, { type: 'node.apply.started', epoch: 4 }), { phase: 'serving', posture: 'wait' });
  t.match(
    after(booted, { type: 'node.apply.started', epoch: 4 }, { type: 'node.apply.succeeded', epoch: 4 }),
    {
      posture: 'serve',
      appliedEpoch: 4,
    },
  );
});

t.test('a failed apply leaves the posture the host chose', async (t) => {
  for (const posture of ['shed', 'isolated', 'stuck'] as const) {
    t.match(
      after(
        { type: 'node.booted', configured: true, appliedEpoch: 3 },
        { type: 'node.apply.started', epoch: 4 },
        { type: 'node.apply.failed', epoch: 4, posture },
      ),
      { phase: 'serving', posture, appliedEpoch: 3 },
    );
  }
});

t.test('lagging the fleet epoch sheds a serving node', async (t) => {
  t.match(after({ type: 'node.booted', configured: true, appliedEpoch: 3 }, { type: 'node.lagged' }), {
    posture: 'shed',
  });
});

t.test('a termination signal drains from any state, once, and drain ends stopped', async (t) => {
  t.match(after({ type: 'node.drain' }), { phase: 'draining' });
  t.match(after({ type: 'node.booted', configured: false, appliedEpoch: 0 }, { type: 'node.drain' }), {
    phase: 'draining',
    configured: false,
  });
  t.match(
    after(
      { type: 'node.booted', configured: true, appliedEpoch: 2 },
      { type: 'node.drain' },
      { type: 'node.drain' },
      { type: 'node.apply.succeeded', epoch: 9 },
    ),
    { phase: 'draining', appliedEpoch: 2 },
  );
  t.match(after({ type: 'node.drain' }, { type: 'node.stopped' }), { phase: 'stopped' });
});
