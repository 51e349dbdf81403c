import t from 'tap';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import {
  integrationMachine,
  type IntegrationEvent,
  type IntegrationFacts,
} from '../../../actors/integration/integration.machine.js';

type Snapshot = SnapshotFrom<typeof integrationMachine>;

interface Step {
  snapshot: Snapshot;
  /** The effects the transition named, with their parameters. */
  effects: Array<{ type: string; params: unknown }>;
}

const effectNames = new Set(['run_pass', 'reply_not_configured', 'store_seat_tokens', 'abandon_passes']);

/** given events (a kind with or without seat tokens), when one more, then the state and the effects named. */
function given(...events: IntegrationEvent[]): {
  when(event: IntegrationEvent): Step;
  snapshot: Snapshot;
  withSeatTokens(): ReturnType<typeof given>;
} {
  return start(false, events);
}
function start(seatTokens: boolean, events: IntegrationEvent[]): ReturnType<typeof given> {
  let [snapshot] = initialTransition(integrationMachine, { kind: 'tracker-b', seatTokens });
  for (const event of events) [snapshot] = transition(integrationMachine, snapshot, event);
  return {
    snapshot,
    withSeatTokens: () => start(true, events),
    when(event) {
      const [next, actions] = transition(integrationMachine, snapshot, event);
      return {
        snapshot: next,
        effects: actions
          .filter((a) => effectNames.has(a.type))
          .map((a) => ({ type: a.type, params: a.params })),
      };
    },
  };
}

const facts = (over: Partial<IntegrationFacts> = {}): IntegrationEvent => ({
  type: 'integration.observed',
  facts: { configured: true, enabled: true, satisfied: true, document: true, ...over },
});
const command = (
  mode: 'provision' | 'check' | 'disconnect',
  run_id = 'r1',
  keyring = true,
): IntegrationEvent => ({
  type: 'integration.command',
  mode,
  run_id,
  node: 'n1',
  keyring,
});
const started = (
  run_id: string,
  mode: 'provision' | 'check' | 'disconnect',
  node = 'n2',
): IntegrationEvent => ({
  type: 'integration.recorded.started',
  run_id,
  mode,
  node,
});
const finished = (
  run_id: string,
  mode: 'provision' | 'check' | 'disconnect',
  status: 'succeeded' | 'failed',
): IntegrationEvent => ({ type: 'integration.recorded.finished', run_id, mode, status });

t.test('with nothing observed an integration is unconfigured', async (t) => {
  t.equal(given().snapshot.value, 'unconfigured');
});

t.test('the configuration alone places it: disabled, credentials missing, ready', async (t) => {
  t.equal(given().when(facts({ enabled: false, satisfied: false })).snapshot.value, 'disabled');
  t.equal(given().when(facts({ satisfied: false })).snapshot.value, 'credentials_missing');
  t.equal(given().when(facts()).snapshot.value, 'ready');
  t.equal(
    given(facts()).when(facts({ configured: false, enabled: false, satisfied: false })).snapshot.value,
    'unconfigured',
  );
});

t.test('a provision command names the pass and moves to provisioning', async (t) => {
  const step = given(facts()).when(command('provision'));
  t.equal(step.snapshot.value, 'provisioning');
  t.same(step.effects, [
    { type: 'run_pass', params: { run_id: 'r1', mode: 'provision', keep_seat_tokens: false } },
  ]);
});

t.test('a check runs even when credentials are missing (the pass reports what is missing)', async (t) => {
  const step = given(facts({ satisfied: false })).when(command('check'));
  t.equal(step.snapshot.value, 'checking');
  t.same(
    step.effects.map((e) => e.type),
    ['run_pass'],
  );
});

t.test(
  'seat tokens are kept only by a provision of a kind that mints them, on a node that can seal',
  async (t) => {
    const keep = (step: Step) => (step.effects[0]?.params as { keep_seat_tokens: boolean }).keep_seat_tokens;
    t.equal(keep(given(facts()).withSeatTokens().when(command('provision'))), true);
    t.equal(
      keep(
        given(facts())
          .withSeatTokens()
          .when(command('provision', 'r1', false)),
      ),
      false,
    );
    t.equal(keep(given(facts()).withSeatTokens().when(command('check'))), false);
    t.equal(keep(given(facts()).when(command('provision'))), false);
  },
);

t.test('a disconnect of an unconfigured integration runs no pass and says so', async (t) => {
  const step = given().when(command('disconnect'));
  t.equal(step.snapshot.value, 'unconfigured');
  t.same(step.effects, [{ type: 'reply_not_configured', params: { run_id: 'r1' } }]);
});

t.test('a provision or check of a kind whose block is absent runs no pass and says so', async (t) => {
  for (const mode of ['provision', 'check'] as const) {
    const step = given(facts({ configured: false, enabled: false, satisfied: false })).when(command(mode));
    t.equal(step.snapshot.value, 'unconfigured', mode);
    t.same(step.effects, [{ type: 'reply_not_configured', params: { run_id: 'r1' } }], mode);
  }
  // The monitor has no block: its check runs and says what is missing.
  let [snapshot] = initialTransition(integrationMachine, {
    kind: 'monitor',
    seatTokens: false,
    block: false,
  });
  [snapshot] = transition(integrationMachine, snapshot, facts({ configured: false, enabled: false }));
  const [, actions] = transition(integrationMachine, snapshot, command('check'));
  t.same(
    actions.filter((a) => effectNames.has(a.type)).map((a) => a.type),
    ['run_pass'],
  );
});

t.test('a disconnect of a configured integration runs the pass and reads disconnecting', async (t) => {
  const step = given(facts()).when(command('disconnect'));
  t.equal(step.snapshot.value, 'disconnecting');
  t.same(step.effects, [
    { type: 'run_pass', params: { run_id: 'r1', mode: 'disconnect', keep_seat_tokens: false } },
  ]);
  const after = given(facts(), command('disconnect'), finished('r1', 'disconnect', 'succeeded')).when(
    facts({ configured: false, enabled: false, satisfied: false }),
  );
  t.equal(after.snapshot.value, 'unconfigured');
});

t.test('a failed pass degrades a satisfied integration until a pass succeeds', async (t) => {
  const failed = given(facts(), command('check')).when(finished('r1', 'check', 'failed'));
  t.equal(failed.snapshot.value, 'degraded');
  t.same(failed.effects, [], 'a recorded finish names no effect');
  const healed = given(facts(), command('check'), finished('r1', 'check', 'failed')).when(
    finished('r2', 'provision', 'succeeded'),
  );
  t.equal(healed.snapshot.value, 'ready');
});

t.test('missing credentials read before a failed pass', async (t) => {
  const step = given(facts(), finished('r1', 'check', 'failed')).when(facts({ satisfied: false }));
  t.equal(step.snapshot.value, 'credentials_missing');
});

t.test(
  'a failed disconnect says nothing of the connection: the last provision or check stands',
  async (t) => {
    const step = given(facts(), finished('r1', 'check', 'succeeded')).when(
      finished('r2', 'disconnect', 'failed'),
    );
    t.equal(step.snapshot.value, 'ready');
    t.same(step.snapshot.context.last, { run_id: 'r1', mode: 'check', status: 'succeeded' });
  },
);

t.test('replayed records rebuild the state and name no effect', async (t) => {
  const step = given(facts()).when(started('r9', 'provision'));
  t.equal(step.snapshot.value, 'provisioning');
  t.same(step.effects, []);
  t.equal(
    given(facts(), started('r9', 'provision')).when(finished('r9', 'provision', 'failed')).snapshot.value,
    'degraded',
  );
});

t.test(
  'a start with no finish (a node cut mid-pass) keeps the state busy; its own record is idempotent',
  async (t) => {
    const step = given(facts(), command('provision'), started('r1', 'provision')).when(
      started('r2', 'check'),
    );
    t.equal(step.snapshot.value, 'provisioning', 'a provision reads before a concurrent check');
    t.same(Object.keys(step.snapshot.context.running).sort(), ['r1', 'r2']);
    const done = given(
      facts(),
      command('provision'),
      started('r2', 'check'),
      finished('r1', 'provision', 'succeeded'),
    );
    t.equal(done.snapshot.value, 'checking');
  },
);

t.test("a restarted node abandons the passes it was cut in the middle of, and no other node's", async (t) => {
  const cut = given(facts(), started('r1', 'provision', 'n1'), started('r2', 'check', 'n2'));
  const step = cut.when({ type: 'integration.node.started', node: 'n1' });
  t.same(step.effects, [{ type: 'abandon_passes', params: { run_ids: ['r1'] } }]);
  t.same(given(facts()).when({ type: 'integration.node.started', node: 'n1' }).effects, [
    { type: 'abandon_passes', params: { run_ids: [] } },
  ]);
  const recorded = given(facts(), started('r1', 'provision', 'n1')).when(
    finished('r1', 'provision', 'failed'),
  );
  t.equal(recorded.snapshot.value, 'degraded', 'the abandoning record finishes it like any other');
});

t.test('minted seat tokens are stored when a provision minted some and a revision exists', async (t) => {
  const done = (minted: number, mode: 'provision' | 'check' = 'provision'): IntegrationEvent => ({
    type: 'integration.pass.done',
    run_id: 'r1',
    mode,
    minted,
  });
  const tokens = given(facts(), command('provision')).withSeatTokens();
  t.same(tokens.when(done(2)).effects, [{ type: 'store_seat_tokens', params: { run_id: 'r1' } }]);
  t.same(tokens.when(done(0)).effects, [], 'nothing minted, nothing stored');
  t.same(tokens.when(done(2, 'check')).effects, [], 'a check never stores');
  const noDocument = given(facts({ document: false }), command('provision')).withSeatTokens();
  t.same(noDocument.when(done(2)).effects, [], 'no revision to build on');
});
