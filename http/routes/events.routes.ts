/**
 * The event history routes and the snapshot, thin adapters over the registered questions (`events`,
 * `event`, `trace`) and the section registry, plus the 426 of `/ws/stream` asked without a WebSocket handshake.
 */
import type { SectionRegistry } from '../../projections/index.js';
import { codelessReply } from '../api-error.js';
import type { ApiRequest, RouteDef } from '../types.js';
import { handshakeFault } from '../ws/stream-handshake.js';
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
      handler: async (req) => ({ status: 200, body: await ask(questions, 'events', req.query, req) }),
    },
    {
      method: 'GET',
      pattern: '/events/trace/:trace_id',
      handler: async (req) => ({
        status: 200,
        body: await ask(questions, 'trace', withParam(req, 'trace_id', req.params['trace_id'] ?? ''), req),
      }),
    },
    {
      method: 'GET',
      pattern: '/events/:event_id',
      handler: async (req) => ({
        status: 200,
        body: await ask(questions, 'event', withParam(req, 'event_id', req.params['event_id'] ?? ''), req),
      }),
    },
    {
      method: 'GET',
      pattern: '/stream/snapshot',
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
