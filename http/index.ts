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
  RequestHead,
  RouteDef,
  RouteKind,
} from './types.js';
export { configRoutes, type ConfigRouteDeps } from './routes/config/config.routes.js';
export { queryRoutes, type Question, type QuestionRegistry } from './routes/query.routes.js';
export { secretsRoutes, type SecretsRouteDeps } from './routes/secrets/secrets.routes.js';
export { mcpServersRoutes } from './routes/mcp-servers.routes.js';
export { scheduleRoutes, type ScheduleRouteDeps } from './routes/schedules/schedules.routes.js';
export { accessRoutes, type AccessRouteDeps } from './routes/access/access.routes.js';
export { seatRoutes, type SeatRouteDeps } from './routes/seats/seats.routes.js';
