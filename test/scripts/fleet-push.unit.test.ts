/**
 * What the socket's `fleet` push follows: the fingerprint moves with everything `GET /fleet` shows (a node
 * joining or leaving, a lease's holder or epoch, a node's applied epoch, the answer's completeness) and not
 * with a renewal (the renewal and expiry instants, the read time).
 */
import t from 'tap';
import type { FleetAnswer } from '../../schema/index.js';
import { fleetFingerprint } from '../../scripts/fleet-push.js';

const node = (id: string, renewed: string) => ({
  id,
  roles: ['api', 'seats'],
  labels: {},
  version: '1.0.0',
  started_at: '2026-01-01T00:00:00.000Z',
  applied_epoch: 3,
  posture: 'serve',
  alarms: { count: 0, names: [] },
  store: { engine: 'jetstream', dir: null },
  sandbox: null,
  api: { host: '127.0.0.1', port: 8080 },
  renewed_at: renewed,
  expires_at: renewed.replace('00:00:0', '00:00:1'),
  seats: ['ada'],
  duties: ['scheduler'],
});

const answer = (renewed: string, read: string): FleetAnswer =>
  ({
    node: 'node-a',
    read_at: read,
    complete: true,
    nodes: [node('node-a', renewed)],
    seats: { ada: { node: 'node-a', epoch: 2, expires_at: renewed } },
    duties: { scheduler: { node: 'node-a', epoch: 5, expires_at: renewed } },
    expired: [],
  }) as FleetAnswer;

const base = answer('2026-01-01T00:00:01.000Z', '2026-01-01T00:00:01.500Z');
const same = (a: FleetAnswer, b: FleetAnswer) => fleetFingerprint(a) === fleetFingerprint(b);

t.test('a renewal and a later read leave the fingerprint alone', async (t) => {
  t.ok(same(base, answer('2026-01-01T00:00:02.000Z', '2026-01-01T00:00:09.000Z')));
});

t.test('every change the fleet answer shows moves the fingerprint', async (t) => {
  const changes: Record<string, (a: FleetAnswer) => FleetAnswer> = {
    'a node joins': (a) => ({ ...a, nodes: [...a.nodes, { ...a.nodes[0]!, id: 'node-b' }] }),
    'a node leaves': (a) => ({ ...a, nodes: [], expired: [{ node: 'node-a', expired_at: a.read_at }] }),
    'a seat changes holder': (a) => ({ ...a, seats: { ada: { ...a.seats['ada']!, node: 'node-b' } } }),
    'a seat is let go': (a) => ({ ...a, seats: {} }),
    'a seat lease is taken again': (a) => ({ ...a, seats: { ada: { ...a.seats['ada']!, epoch: 3 } } }),
    'a duty fails over': (a) => ({
      ...a,
      duties: { scheduler: { ...a.duties['scheduler']!, node: 'node-b', epoch: 6 } },
    }),
    "a node's applied epoch moves": (a) => ({ ...a, nodes: [{ ...a.nodes[0]!, applied_epoch: 4 }] }),
    "a node's posture moves": (a) => ({ ...a, nodes: [{ ...a.nodes[0]!, posture: 'stuck' }] }),
    'a node raises an alarm': (a) => ({
      ...a,
      nodes: [{ ...a.nodes[0]!, alarms: { count: 1, worst: 'critical', names: ['apply_stuck'] } }],
    }),
    'the view stops vouching for itself': (a) => ({ ...a, complete: false }),
  };
  for (const [name, change] of Object.entries(changes)) t.notOk(same(base, change(base)), name);
});
