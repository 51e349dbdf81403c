/** The edge gateway (DESIGN.md "Gateway"): the only folder that imports uWebSockets.js. */
export { ApiError, codelessReply, errorReply, type ApiErrorOptions } from './api-error.js';
export { startBareHelloServer, type BareServer } from './bench-baseline.js';
export { defaultLimits, GatewayListenError, startGateway } from './gateway.js';
export { assertCompanyWriter } from './guard.js';
export { CSP_DASHBOARD, CSP_NONE, cspHash } from './headers.js';
export type {
  Access,
  Actor,
  ApiReply,
  ApiRequest,
  AuthSettings,
  Gateway,
  GatewayLimits,
  GatewayOptions,
  Method,
  ProbeSource,
  RouteDef,
  RouteKind,
} from './types.js';
export { configRoutes, type ConfigRouteDeps } from './routes/config/config.routes.js';
export {
  ask,
  asApiError,
  mergeQuestions,
  queryRoutes,
  type QueryContext,
  type Question,
  type QuestionRegistry,
} from './routes/query.routes.js';
export { eventRoutes, type EventRouteDeps } from './routes/events.routes.js';
export { StreamHub, type HubStats, type StreamHubOptions } from './ws/stream-hub.js';
export { defaultClientLimits, StreamClient, type ClientLimits, type SocketSink } from './ws/stream-client.js';
export {
  readModelRoutes,
  readQuestions,
  type ReadSource,
} from './routes/readmodels/readmodels.routes.js';
