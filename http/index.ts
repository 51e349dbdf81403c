/** The edge gateway (DESIGN.md "Gateway"): the only folder that imports uWebSockets.js. */
export { ApiError } from './api-error.js';
export { defaultLimits, GatewayListenError, startGateway } from './gateway.js';
export { assertCompanyWriter } from './guard.js';
export { cspHash } from './headers.js';
export type { Actor, AuthSettings, RouteDef } from './types.js';
export type { AnsweredRequest, Gateway, GatewayOptions, RequestObserver } from './gateway.types.js';
export { configRoutes } from './routes/config/config.routes.js';
export { configQuestions } from './routes/config/config.questions.js';
export { setupQuestions, setupRoutes } from './routes/setup/setup.routes.js';
export type { SetupConfigDeps, SetupRouteDeps } from './routes/setup/setup.deps.js';
export { setupPassSource } from './routes/setup/setup.passes.js';
export { findingsReader } from './routes/setup/setup.context.js';
export { secretsRoutes } from './routes/secrets/secrets.routes.js';
export { mcpServersRoutes } from './routes/mcp-servers.routes.js';
export { scheduleRoutes } from './routes/schedules/schedules.routes.js';
export { accessRoutes } from './routes/access/access.routes.js';
export { seatRoutes } from './routes/seats/seats.routes.js';
export { fleetQuestions, fleetRoutes } from './routes/fleet/fleet.routes.js';
export { metricsRoutes, type MetricsSource } from './routes/metrics/metrics.routes.js';
export { Arrivals } from './webhooks/arrivals.js';
export { defaultBacklog, RoutingBacklog } from './webhooks/backlog.js';
export { integrationsQuestions, integrationsRoutes } from './webhooks/integrations.routes.js';
export { relayKeySet, type RelayKeySet } from './webhooks/relay-keys.js';
export {
  unconfiguredSettings,
  webhookSettingsFrom,
  type ExtraSecrets,
  type WebhookSettings,
} from './webhooks/settings.js';
export { webhookRoutes } from './webhooks/webhooks.routes.js';
export { landingRoutes, type AppCompletion, type AppFlow } from './webhooks/landing.routes.js';
export type { AppInstallation } from './webhooks/receiver.js';
export { queryRoutes, type Question } from './routes/query.routes.js';
export { eventRoutes } from './routes/events.routes.js';
export { nativeBackendRoutes } from './routes/native-backends.routes.js';
export { nativeBackendQuestions } from './routes/native-backends.questions.js';
export { FILES_BUCKET, kvBlobs, workRoutes } from './routes/work/work.routes.js';
export { knowledgeRoutes } from './routes/pages/pages.routes.js';
export { actTools, operatorRoutes } from './routes/operator/operator.routes.js';
export { StreamHub } from './ws/stream-hub.js';
export { StreamClient } from './ws/stream-client.js';
export { readModelRoutes, readQuestions } from './routes/readmodels/readmodels.routes.js';
export { scatterFleet, scatterQuestions, type ScatterOptions } from './scatter.js';
export { fleetMerges } from './scatter.merges.js';
export { backupRoutes } from './routes/backups/backups.routes.js';
export { loadDashboardAssets } from './static/dashboard.assets.js';
export { dashboardRoutes } from './static/dashboard.routes.js';
export { mcpBridgeRoutes } from './routes/sandbox/mcp.routes.js';
export { otlpRoutes } from './routes/sandbox/otlp.routes.js';
export { sandboxCancelRoutes } from './routes/sandbox/cancel.routes.js';
export type { TokenRun } from './routes/sandbox/sandbox.deps.js';
