/**
 * The fleet routes (spec "Read routes"; token always required, the guard knows `/fleet` and `/fleet/*`):
 *   GET  /fleet                               live nodes, their seats and duties, epochs, stores
 *   GET  /fleet/broker                        broker membership as advertised and as reported
 *   POST /fleet/broker/remove/{node}          forget a departed node (`?confirm=` repeats the id)
 *   POST /fleet/broker/remove-peer/{peer}     drop a broker server from its cluster (same rules)
 * A removal is refused with 409 `member_live` while the member is live, unless `?force=true`.
 */
import {
  NODE_ID,
  type BrokerMembership,
  type BrokerServer,
  type FleetAnswer,
  type NodeRemoval,
  type PeerRemoval,
} from '../../../schema/index.js';
import { ApiError } from '../../api-error.js';
import type { ApiRequest, RouteDef } from '../../types.js';
import type { Question } from '../query.routes.js';
import { singleParam } from '../single.param.js';

export interface FleetRouteDeps {
  /** `GET /fleet`, from state kept current in the background. */
  fleet(): FleetAnswer;
  broker(): Promise<BrokerMembership>;
  removeNode(node: string, force: boolean): Promise<NodeRemoval>;
  removePeer(peer: string): Promise<PeerRemoval>;
}

/** `?confirm=` must repeat the id; `?force=` is `true` or `false` (absent: false). */
function removalQuery(req: ApiRequest, id: string, what: 'node' | 'peer'): { force: boolean } {
  const confirm = singleParam(req, 'confirm');
  if (confirm !== id)
    throw new ApiError('invalid_query', {
      detail:
        confirm === null
          ? `removing ${what} ${id} needs ?confirm= repeating its id`
          : `?confirm= does not repeat the ${what} id ${id}`,
      hint: `Send ?confirm=${encodeURIComponent(id)} to confirm the removal.`,
    });
  const force = singleParam(req, 'force');
  if (force !== null && force !== 'true' && force !== 'false')
    throw new ApiError('invalid_query', {
      detail: '`force` is `true` or `false`',
      hint: 'Send ?force=true to remove a member that is still live, or leave it out.',
    });
  return { force: force === 'true' };
}

/** The broker server a path names, by raft peer id or by name. */
function serverNamed(membership: BrokerMembership, peer: string) {
  return membership.reported.servers.find((s) => s.name === peer || s.peer_id === peer) ?? null;
}

/**
 * A removal without `force` goes ahead only when the report shows the server offline, or shows the
 * meta group without it (the broker then answers "no member"). A server the report cannot speak for —
 * the meta group unreadable and no stream copy on it — may well be serving: removing it cuts it out of
 * the cluster while it runs.
 */
function refuseUnlessOffline(membership: BrokerMembership, server: BrokerServer | null, peer: string): void {
  // The last report's rows (the streams cannot be listed now) speak for then, not for now.
  if (server?.report_age_ms !== undefined)
    throw new ApiError('member_live', {
      detail: `the broker cannot be read now (${membership.reported.unavailable ?? 'no report'}); ${server.name} was last reported ${Math.round(server.report_age_ms / 1000)} s ago`,
      hint: 'Ask again once the broker answers (`GET /fleet/broker` without `unavailable`), or repeat with ?force=true once you know it is gone.',
      extra: { server },
    });
  if (server?.offline) return;
  if (server === null && membership.reported.meta !== null) return;
  // A server killed rather than stopped is reported behind its leader, silent, and never offline: saying
  // "online", or that stopping it will make it read offline, would send the operator waiting.
  if (server?.current === false)
    throw new ApiError('member_live', {
      detail: `${server.name} is reported behind its leader, silent for ${Math.round((server.active_ms ?? 0) / 1000)} s, not offline`,
      hint: 'A server that was killed or cut off stays reported so; once you know it is gone for good, repeat with ?force=true.',
      extra: { server },
    });
  throw new ApiError('member_live', {
    detail:
      server !== null
        ? `the broker reports ${server.name} online`
        : `the broker's report cannot tell whether ${peer} is offline (${membership.reported.meta_unavailable ?? 'no meta group'}; no stream copy names it)`,
    hint: 'Stop that server first (`GET /fleet/broker` then reports it offline), or repeat with ?force=true once you know it is gone.',
    extra: { server },
  });
}

/** The `fleet` question: `GET /fleet`'s answer over the socket's query channel, guarded as the route. */
export function fleetQuestions(deps: Pick<FleetRouteDeps, 'fleet'>): Map<string, Question> {
  return new Map([['fleet', { guarded: true, params: [], answer: () => deps.fleet() }]]);
}

export function fleetRoutes(deps: FleetRouteDeps): RouteDef[] {
  return [
    { method: 'GET', pattern: '/fleet', query: [], handler: () => ({ status: 200, body: deps.fleet() }) },
    {
      method: 'GET',
      pattern: '/fleet/broker',
      query: [],
      handler: async () => ({ status: 200, body: await deps.broker() }),
    },
    {
      method: 'POST',
      pattern: '/fleet/broker/remove/:node',
      query: ['confirm', 'force'],
      handler: async (req) => {
        const node = req.params['node'] ?? '';
        // No node can bear an id outside the grammar, and the store refuses such a key: say so, not 503.
        if (!NODE_ID.test(node))
          throw new ApiError('bad_params', {
            detail: `${JSON.stringify(node)} is not a node id: letters, digits, _ and - (at most 64)`,
            hint: '`GET /fleet` lists the node ids.',
          });
        const { force } = removalQuery(req, node, 'node');
        const result = await deps.removeNode(node, force);
        if (result.outcome === 'unknown')
          throw new ApiError('not_found', {
            detail: `no presence, seats member record or lease names node ${node}`,
            hint: '`GET /fleet` lists the live nodes and the expired presence records.',
          });
        if (result.outcome === 'live')
          throw new ApiError('member_live', {
            detail: `node ${node} holds ${result.leases.length} live lease${result.leases.length === 1 ? '' : 's'}`,
            extra: { leases: result.leases },
          });
        req.log.info(
          { removed: node, forced: force, deleted: result.answer.deleted },
          'fleet member removed',
        );
        return { status: 200, body: result.answer };
      },
    },
    {
      method: 'POST',
      pattern: '/fleet/broker/remove-peer/:peer',
      query: ['confirm', 'force'],
      handler: async (req) => {
        const peer = req.params['peer'] ?? '';
        const { force } = removalQuery(req, peer, 'peer');
        const membership = await deps.broker();
        const server = serverNamed(membership, peer);
        // The memory engine's one member runs inside this node: stopping it first cannot help, so the
        // engine's own refusal is the answer, forced or not.
        if (!force && membership.engine !== 'memory') refuseUnlessOffline(membership, server, peer);
        const result = await deps.removePeer(peer);
        if (!result.removed && result.reason === 'unknown_peer')
          throw new ApiError('not_found', {
            detail: result.detail,
            hint: '`GET /fleet/broker` lists the servers by name and raft peer id.',
          });
        if (!result.removed) throw new ApiError('broker_refused', { detail: result.detail });
        req.log.info({ removed_peer: peer, forced: force }, 'broker peer removed');
        return { status: 200, body: { removed: peer, server: server?.name ?? result.server, forced: force } };
      },
    },
  ];
}
