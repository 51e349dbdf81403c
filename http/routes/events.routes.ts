/**
 * The event history routes and the snapshot, thin adapters over the registered questions (`events`,
 * `event`, `trace`) and the section registry, plus the 426 of `/ws/stream` asked without a WebSocket handshake.
 * Each declares what it reads (the question's parameters, `query.catalogue.ts`): any other is 400
 * `bad_params`, so `/events?seet=ada` is not the whole feed. `/ws/stream` declares none: its handshake is
 * checked, not its query (a browser's `?token=` is read by the upgrade, ops/http.md).
 */
import type { SectionRegistry } from '../../projections/index.js';
import { codelessReply } from '../api-error.js';
import type { ApiRequest, RouteDef } from '../types.js';
import { handshakeFault } from '../ws/stream-handshake.js';
import { adaptedQuery } from './query.catalogue.js';
import { ask, type QuestionRegistry } from './query.routes.js';

export interface EventRouteDeps {
  readonly questions: QuestionRegistry;
  readonly sections: SectionRegistry;
}

const withParam = (req: ApiRequest, name: string, value: string): URLSearchParams => {
  const params = new URLSearchParams(req.query);
  params.set(name, value);
  return params;
};

export function eventRoutes(deps: EventRouteDeps): RouteDef[] {
  const { questions, sections } = deps;
  return [
    {
      method: 'GET',
      pattern: '/events',
      query: adaptedQuery('events'),
      handler: async (req) => ({ status: 200, body: await ask(questions, 'events', req.query, req) }),
    },
    {
      method: 'GET',
      pattern: '/events/trace/:trace_id',
      query: adaptedQuery('trace', ['trace_id']),
      handler: async (req) => ({
        status: 200,
        body: await ask(questions, 'trace', withParam(req, 'trace_id', req.params['trace_id'] ?? ''), req),
      }),
    },
    {
      method: 'GET',
      pattern: '/events/:event_id',
      // `?id=` is `event_id`'s alias: read, and refused when it names another event than the path.
      query: adaptedQuery('event', ['event_id']),
      handler: async (req) => ({
        status: 200,
        body: await ask(questions, 'event', withParam(req, 'event_id', req.params['event_id'] ?? ''), req),
      }),
    },
    {
      method: 'GET',
      pattern: '/stream/snapshot',
      query: [],
      handler: () => ({ status: 200, body: sections.snapshot() }),
    },
    {
      // Reached past the guard by a GET uWS did not take as an upgrade (no 24-character key): the 426 says
      // what the handshake lacked.
      method: 'GET',
      pattern: '/ws/stream',
      handler: (req) =>
        handshakeFault({
          upgrade: req.headers['upgrade'] ?? '',
          connection: req.headers['connection'] ?? '',
          key: req.headers['sec-websocket-key'] ?? '',
          version: req.headers['sec-websocket-version'] ?? '',
        }) ??
        codelessReply(
          426,
          'This path is a WebSocket, but this listener serves no live stream.',
          'Connect to the node that serves the dashboard (api.port).',
          { Upgrade: 'websocket' },
        ),
    },
  ];
}
