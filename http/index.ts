/** The edge gateway (DESIGN.md "Gateway"): the only folder that imports uWebSockets.js. */
export { ApiError, codelessReply, errorReply, type ApiErrorOptions } from './api-error.js';
export { defaultLimits, GatewayListenError, startGateway } from './gateway.js';
export { assertCompanyWriter } from './guard.js';
export { CSP_DASHBOARD, CSP_NONE, cspHash } from './headers.js';
export type {
  Access,
  Actor,
  ApiReply,
  ApiRequest,
  AuthSettings,
  GatewayLimits,
  Method,
  ProbeSource,
  RequestHead,
  RouteDef,
  RouteKind,
} from './types.js';
export type { AnsweredRequest, Gateway, GatewayOptions, RequestObserver } from './gateway.types.js';
export { configRoutes, type ConfigRouteDeps } from './routes/config/config.routes.js';
export { configQuestions } from './routes/config/config.questions.js';
export { setupRoutes } from './routes/setup/setup.routes.js';
export type { PassRuns, SetupConfigDeps, SetupRouteDeps } from './routes/setup/setup.deps.js';
export { setupPassSource } from './routes/setup/setup.passes.js';
export { secretsRoutes, type SecretsRouteDeps } from './routes/secrets/secrets.routes.js';
export { mcpServersRoutes } from './routes/mcp-servers.routes.js';
export { scheduleRoutes, type ScheduleRouteDeps } from './routes/schedules/schedules.routes.js';
export { accessRoutes, type AccessRouteDeps } from './routes/access/access.routes.js';
export { seatRoutes, type SeatRouteDeps } from './routes/seats/seats.routes.js';
export { fleetRoutes, type FleetRouteDeps } from './routes/fleet/fleet.routes.js';
export { metricsRoutes, type MetricsSource } from './routes/metrics/metrics.routes.js';
export { Arrivals, type ArrivalsOptions } from './webhooks/arrivals.js';
export {
  integrationsAnswer,
  integrationsQuestions,
  integrationsRoutes,
  type IntegrationsAnswer,
  type IntegrationsDeps,
} from './webhooks/integrations.routes.js';
export type { ReceiverDeps } from './webhooks/receiver.js';
export { KeySetUnavailable, relayKeySet, type RelayKeySet } from './webhooks/relay-keys.js';
export {
  unconfiguredSettings,
  webhookSettingsFrom,
  type ExtraSecrets,
  type WebhookSettings,
} from './webhooks/settings.js';
export { webhookRoutes } from './webhooks/webhooks.routes.js';
export { stateSigner, type StateSigner } from './webhooks/app-state.js';
export {
  landingRoutes,
  type AppCompletion,
  type AppFlow,
  type LandingDeps,
} from './webhooks/landing.routes.js';
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
export { nativeBackendRoutes, type NativeBackends } from './routes/native-backends.routes.js';
export { FILES_BUCKET, kvBlobs, workRoutes, type FileBlobs, type WorkRouteDeps } from './routes/work/work.routes.js';
export { knowledgeRoutes, type KnowledgeRouteDeps } from './routes/pages/pages.routes.js';
export { actTools, operatorRoutes, type OperatorDeps } from './routes/operator/operator.routes.js';
export { StreamHub, type HubStats, type StreamHubOptions } from './ws/stream-hub.js';
export { defaultClientLimits, StreamClient, type ClientLimits, type SocketSink } from './ws/stream-client.js';
export { readModelRoutes, readQuestions, type ReadSource } from './routes/readmodels/readmodels.routes.js';
export {
  fleetReadBudgetMs,
  SCATTER_VERSION,
  scatterFleet,
  scatterQuestions,
  scatterSubject,
  type Merge,
  type NodeAnswer,
  type ScatterOptions,
} from './scatter.js';
export { fleetMerges, mergeIntegrations, mergeNodeLists, mergeOwn, mergePages } from './scatter.merges.js';
export { backupRoutes, type BackupRouteDeps } from './routes/backups/backups.routes.js';
export { loadDashboardAssets, type DashboardAssets, type StaticFile } from './static/dashboard.assets.js';
export { dashboardRoutes } from './static/dashboard.routes.js';
export { serveMcp, type McpSurface } from './mcp-bridge.js';
export { mcpBridgeRoutes } from './routes/sandbox/mcp.routes.js';
export { otlpRoutes } from './routes/sandbox/otlp.routes.js';
export type {
  McpBridgeDeps,
  OtlpDeps,
  OtlpSignal,
  SandboxTokenDeps,
  TokenRun,
} from './routes/sandbox/sandbox.deps.js';
