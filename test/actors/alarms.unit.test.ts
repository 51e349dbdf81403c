/**
 * Alarms as given / when / then: the rules decide which alarms a node's facts raise (ops/fleet.md
 * "Alarms"), a change between two looks is announced once, and the probes read a node without its
 * broker as `isolated` and not ready (`broker_unlinked`), never `ok`.
 */
import t from 'tap';
import {
  buildHealth,
  changes,
  CRASH_LOOP_RESTARTS,
  emptyLiveFacts,
  evaluate,
  readiness,
  summary,
  type AlarmFacts,
  type NodeIdentity,
  type NodeView,
} from '../../actors/index.js';
import { ToolServerState } from '../../schema/index.js';
import { calmFacts } from './fixtures/alarm-facts.js';

const calm = calmFacts;
const ids = (facts: Partial<AlarmFacts>): string[] => [...evaluate({ ...calm, ...facts }).keys()].sort();

t.test('a calm node has no alarm, and health says count 0 without worst', async (t) => {
  t.same(ids({}), []);
  t.same(summary(evaluate(calm)), { count: 0 });
});

t.test('each condition raises its alarm with its severity', async (t) => {
  const one = (facts: Partial<AlarmFacts>) => [...evaluate({ ...calm, ...facts }).values()];
  t.match(one({ busLinked: false }), [{ id: 'bus_unreachable', severity: 'critical' }]);
  t.match(one({ lagSeconds: 12 }), [{ id: 'config_lagging', severity: 'warning', detail: /12 s behind/ }]);
  t.match(one({ posture: 'shed', lagSeconds: 50 }), [{ id: 'node_shed', severity: 'critical' }]);
  t.match(one({ posture: 'stuck' }), [{ id: 'apply_stuck', severity: 'critical' }]);
  // Stuck by a failed rollback or by a revision this node cannot open: the message claims neither alone.
  t.match(one({ posture: 'stuck' })[0], { detail: /cannot be opened here.*rollback failed too/ });
  t.match(one({ posture: 'isolated' }), [{ id: 'apply_isolated', severity: 'warning' }]);
  t.same(ids({ budgetRefused: ['org', 'seat:ada'] }), ['budget_exhausted:org', 'budget_exhausted:seat:ada']);
  t.equal(evaluate({ ...calm, budgetRefused: ['org'] }).get('budget_exhausted:org')?.severity, 'critical');
  t.equal(
    evaluate({ ...calm, budgetRefused: ['seat:ada'] }).get('budget_exhausted:seat:ada')?.severity,
    'warning',
  );
});

t.test('a tool server counts as crash-looping only while failing after repeated restarts', async (t) => {
  const server = (state: ToolServerState, restarts: number, seat: string | null = null) => ({
    toolServers: [{ server: 'docs', seat, state, restarts }],
  });
  const { Backoff, Starting, Started } = ToolServerState;
  t.same(ids(server(Backoff, CRASH_LOOP_RESTARTS - 1)), [], 'a first few failures are the backoff at work');
  t.same(ids(server(Backoff, CRASH_LOOP_RESTARTS)), ['toolserver_crash_loop:docs']);
  t.same(ids(server(Backoff, CRASH_LOOP_RESTARTS, 'ada')), ['toolserver_crash_loop:docs@ada'], 'per seat');
  t.same(
    ids(server(Starting, CRASH_LOOP_RESTARTS + 1)),
    ['toolserver_crash_loop:docs'],
    'a restart attempt between two failures keeps it raised',
  );
  t.same(ids(server(Started, 10)), [], 'started again: cleared, whatever it went through');
});

t.test('an LLM provider none of whose keys resolves raises an alarm naming the variables', async (t) => {
  const raised = evaluate({
    ...calm,
    keylessProviders: [{ provider: 'main', unresolved: ['ANTHROPIC_KEY', 'api_keys[1]'] }],
  });
  t.match(
    [...raised.values()],
    [
      {
        id: 'provider_no_key:main',
        kind: 'provider_no_key',
        severity: 'warning',
        detail: /main has no key: \$\{ANTHROPIC_KEY\}, api_keys\[1\] resolves to nothing/,
      },
    ],
  );
  t.same(ids({ keylessProviders: [] }), [], 'cleared once a key resolves');
});

t.test('a setup finding raises an alarm under its blocks name, naming what is missing', async (t) => {
  const found = [
    ...evaluate({
      ...calm,
      setupFindings: [
        { finding: 'tracker_b.webhook_unsigned', integration: 'tracker-b', missing: ['Webhook secret'] },
        { finding: 'tracker_b.credentials_missing', integration: 'tracker-b', missing: ['API token'] },
      ],
    }).values(),
  ];
  t.match(found, [
    { id: 'setup_incomplete:tracker_b.webhook_unsigned', kind: 'setup_incomplete', severity: 'warning', detail: /tracker-b lacks Webhook secret .*\/setup\/integrations\/tracker-b/ }, // prettier-ignore
    { id: 'setup_incomplete:tracker_b.credentials_missing', detail: /lacks API token/ },
  ]);
  t.same(ids({ setupFindings: [] }), []);
});

t.test(
  'a setup finding whose secret is sealed under a key this node lacks names that key, not an unset value',
  async (t) => {
    const [alarm] = [
      ...evaluate({
        ...calm,
        setupFindings: [
          {
            finding: 'tracker_b.credentials_missing',
            integration: 'tracker-b',
            missing: ['API token', 'Workspace'],
            unreadable: [{ label: 'API token', name: 'SVC_TB_TOKEN', key_id: 'k9' }],
          },
        ],
      }).values(),
    ];
    const detail = alarm?.detail ?? '';
    t.match(detail, /API token: \$\{SVC_TB_TOKEN\} is sealed under key k9, which this node's keyring lacks/);
    t.match(
      detail,
      /lacks Workspace \(unset, or its \$\{VAR\} resolves to nothing\)/,
      'the others as before',
    );
    t.notMatch(detail, /API token[^:]*\(unset/, 'the sealed one is not called unset');
    t.match(detail, /see \/setup\/integrations\/tracker-b$/);
  },
);

t.test('a change is announced once: raised when it starts, cleared when it ends', async (t) => {
  const down = evaluate({ ...calm, busLinked: false });
  const first = changes(new Map(), down);
  t.same(
    first.raised.map((a) => a.id),
    ['bus_unreachable'],
  );
  t.same(changes(down, evaluate({ ...calm, busLinked: false })), { raised: [], cleared: [] }, 'no repeat');
  const back = changes(down, evaluate(calm));
  t.same(
    back.cleared.map((a) => a.id),
    ['bus_unreachable'],
  );
  t.same(summary(evaluate({ ...calm, busLinked: false, lagSeconds: 3 })), { count: 2, worst: 'critical' });
  t.same(summary(evaluate({ ...calm, lagSeconds: 3 })), { count: 1, worst: 'warning' });
});

const ingress: NodeIdentity = {
  node: 'node-0',
  version: '0.1.0',
  startedAt: '2026-11-22T10:00:00.000Z',
  queue: 'jetstream',
  roles: ['ingress', 'data', 'seats'],
  ingress: true,
  eventHistorySeconds: 2592000,
  spendHistorySeconds: 15638400,
};
const worker: NodeIdentity = { ...ingress, roles: ['data', 'seats'], ingress: false };
const serving: NodeView = {
  phase: 'serving',
  configured: true,
  posture: 'serve',
  concludedPosture: 'serve',
  appliedEpoch: 1,
};
const unlinked = { ...emptyLiveFacts, brokerLinked: false, alarms: { count: 1, worst: 'critical' } };

t.test('a node without its broker reads isolated with its alarm, and is not ready', async (t) => {
  const health = buildHealth(serving, ingress, unlinked);
  t.equal(health.status, 'isolated', 'never ok while the streams are out of reach');
  t.same(health.alarms, { count: 1, worst: 'critical' });
  t.match(readiness(serving, ingress, unlinked), { ready: false, reason: 'broker_unlinked' });
  t.match(readiness(serving, worker, unlinked), { ready: false, reason: 'broker_unlinked' });
  t.match(
    readiness({ ...serving, phase: 'draining' }, ingress, unlinked),
    { reason: 'draining' },
    'draining still comes first',
  );
  t.equal(
    buildHealth({ ...serving, posture: 'stuck' }, ingress, unlinked).status,
    'stuck',
    'a worse posture wins',
  );
  t.equal(buildHealth(serving, ingress, emptyLiveFacts).status, 'ok', 'and ok again once linked');
  t.same(readiness(serving, ingress, emptyLiveFacts), { ready: true });
});

t.test('a duplicate node id raises a critical alarm while it lasts, cleared when it ends', async (t) => {
  const raised = evaluate({ ...calm, duplicateNodeId: true });
  t.match(raised.get('duplicate_node_id'), {
    kind: 'duplicate_node_id',
    severity: 'critical',
    detail: /another process runs with this node id/,
  });
  t.same(
    changes(raised, evaluate(calm)).cleared.map((a) => a.id),
    ['duplicate_node_id'],
  );
});
