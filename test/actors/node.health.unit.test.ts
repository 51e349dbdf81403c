import t from 'tap';
import {
  buildHealth,
  emptyLiveFacts,
  readiness,
  type NodeIdentity,
  type NodeView,
} from '../../actors/index.js';
import { HealthEnvelope, NodeOnlyHealth, NotReady } from '../../schema/index.js';

const ingress: NodeIdentity = {
  node: 'node-0',
  version: '0.1.0',
  startedAt: '2026-11-22T10:00:00.000Z',
  queue: 'memory',
  roles: ['ingress', 'data', 'seats'],
  ingress: true,
  eventHistorySeconds: 2592000,
  spendHistorySeconds: 15638400,
};
const worker: NodeIdentity = { ...ingress, roles: ['data', 'seats'], ingress: false };
const view = (over: Partial<NodeView> = {}): NodeView => ({
  phase: 'serving',
  configured: true,
  posture: 'serve',
  concludedPosture: 'serve',
  appliedEpoch: 1,
  ...over,
});

t.test('health status precedence: shutting_down, unconfigured, diverged posture, ok', async (t) => {
  const status = (v: NodeView) => buildHealth(v, ingress, emptyLiveFacts).status;
  t.equal(status(view({ phase: 'draining', configured: false, posture: 'stuck' })), 'shutting_down');
  t.equal(status(view({ phase: 'unconfigured', configured: false, posture: 'stuck' })), 'unconfigured');
  t.equal(status(view({ posture: 'stuck' })), 'stuck');
  t.equal(status(view({ posture: 'isolated' })), 'isolated');
  t.equal(status(view({ posture: 'shed' })), 'shed');
  t.equal(status(view({ posture: 'wait' })), 'ok');
});

t.test('the ingress envelope carries every field the spec lists', async (t) => {
  const body = buildHealth(view({ phase: 'unconfigured', configured: false }), ingress, emptyLiveFacts);
  HealthEnvelope.strict().parse(body);
  t.match(body, {
    status: 'unconfigured',
    node: 'node-0',
    configured: false,
    version: '0.1.0',
    queue: 'memory',
    clients: 0,
    event_history_seconds: 2592000,
    spend_history_seconds: 15638400,
    in_flight: 0,
    shutting_down: false,
    posture: 'serve',
    applied_epoch: 1,
    seats: [],
    seeded_from: { nodes: [], complete: true },
  });
  t.notOk('alarms' in body, 'alarms absent before the first evaluation');
  t.notOk('stall_lag_seconds' in body, 'stall lag only when behind');
});

t.test('alarms carry worst only when there is one', async (t) => {
  t.same(buildHealth(view(), ingress, { ...emptyLiveFacts, alarms: { count: 0 } }).alarms, { count: 0 });
  t.same(
    buildHealth(view(), ingress, { ...emptyLiveFacts, alarms: { count: 2, worst: 'critical' } }).alarms,
    {
      count: 2,
      worst: 'critical',
    },
  );
});

t.test('a node without ingress reports the node half plus roles', async (t) => {
  const body = buildHealth(view(), worker, emptyLiveFacts);
  NodeOnlyHealth.strict().parse(body);
  t.same((body as { roles: string[] }).roles, ['data', 'seats']);
  for (const absent of ['clients', 'event_history_seconds', 'spend_history_seconds', 'seeded_from']) {
    t.notOk(absent in body, `${absent} absent`);
  }
});

t.test(
  'ingress readiness: draining, unconfigured, shed, stuck in that order; wait and isolated are ready',
  async (t) => {
    const reason = (v: NodeView) => {
      const r = readiness(v, ingress, emptyLiveFacts);
      return r.ready ? 'ready' : NotReady.parse(r).reason;
    };
    t.equal(reason(view({ phase: 'draining', configured: false })), 'draining');
    t.equal(reason(view({ phase: 'unconfigured', configured: false, posture: 'stuck' })), 'unconfigured');
    t.equal(reason(view({ posture: 'shed' })), 'shed');
    t.equal(reason(view({ posture: 'stuck' })), 'stuck');
    t.equal(reason(view({ posture: 'wait' })), 'ready');
    t.equal(reason(view({ posture: 'isolated' })), 'ready');
  },
);

t.test(
  'non-ingress readiness adds broker_unlinked, no_presence and admission_withheld in order',
  async (t) => {
    const reason = (v: NodeView, live = {}) => {
      const r = readiness(v, worker, { ...emptyLiveFacts, ...live });
      return r.ready ? 'ready' : r.reason;
    };
    t.equal(reason(view({ phase: 'draining' }), { brokerLinked: false }), 'draining');
    t.equal(
      reason(view({ configured: false, phase: 'unconfigured' }), { brokerLinked: false }),
      'broker_unlinked',
    );
    t.equal(reason(view({ configured: false, phase: 'unconfigured' }), { presence: false }), 'unconfigured');
    t.equal(reason(view({ posture: 'stuck' }), { presence: false }), 'stuck');
    t.equal(reason(view(), { presence: false, admissionWithheld: true }), 'no_presence');
    t.equal(reason(view(), { admissionWithheld: true }), 'admission_withheld');
    t.equal(reason(view({ posture: 'isolated' })), 'ready');
  },
);

t.test('the not-ready body names node, configured, draining, posture and reason', async (t) => {
  const body = readiness(view({ phase: 'draining' }), ingress, emptyLiveFacts);
  t.match(body, {
    ready: false,
    node: 'node-0',
    configured: true,
    draining: true,
    posture: 'serve',
    reason: 'draining',
  });
});

t.test(
  'a duplicate node id reads admission_withheld on an ingress node too, last in precedence',
  async (t) => {
    const answer = (v: NodeView, live = {}) => readiness(v, ingress, { ...emptyLiveFacts, ...live });
    const withheld = answer(view(), { admissionWithheld: true });
    t.match(withheld, {
      ready: false,
      reason: 'admission_withheld',
      detail: /another process writes this node id/,
    });
    t.match(answer(view({ posture: 'stuck' }), { admissionWithheld: true }), { reason: 'stuck' });
    t.match(answer(view({ phase: 'draining' }), { admissionWithheld: true }), { reason: 'draining' });
    t.same(answer(view()), { ready: true });
  },
);
