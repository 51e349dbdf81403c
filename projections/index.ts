export {
  activationHistory,
  activeRevision,
  activeRevisionId,
  applyConfigFact,
  configAudit,
  emptyConfigState,
  listRevisions,
  loadActive,
  metaOf,
  readRevision,
  type ConfigFact,
  type ConfigState,
} from './config/config.projection.js';
export { defaultPayloadCacheLimits } from './config/config.payloads.js';
export { parsePayload, splitRecord } from './config/config.record.js';
export { configProjection, followConfig, type ConfigView } from './config/config.view.js';
export {
  applySecretFact,
  emptySecretsState,
  listSecrets,
  metaOfSecret,
  secretRecord,
  type SecretsState,
} from './secrets/secrets.projection.js';
export { followSecrets, secretsProjection, type SecretsView } from './secrets/secrets.view.js';
export { secretsThenEnv, storeResolver } from './secrets/secrets.resolve.js';
export {
  applyScheduleEvent,
  emptySchedulesState,
  recentRuns,
  schedulesAnswer,
  type SchedulesState,
} from './schedules/schedules.projection.js';
export { followScheduleRuns, schedulesProjection } from './schedules/schedules.view.js';
export { openCheckpoints, type CheckpointStore } from './runner/checkpoints.js';
export { projectionPositions } from './runner/positions.js';
export { runProjectionsShared } from './runner/shared-replay.js';
export {
  runProjection,
  type AnyProjection,
  type Projection,
  type RunningProjection,
} from './runner/runner.js';
export { QueryError } from './query/query-error.js';
export { eventIdParam, type SeatHandleOf } from './query/params.js';
export { SectionRegistry, type PushMode, type SnapshotSection } from './snapshot/sections.js';
export { categoryCodes, EventIndex } from './events/events.index.js';
export { EventKind } from './events/events.kinds.js';
export { decodeRecord, decodeRow } from './events/events.decode.js';
export { checkRow } from './events/events.check.js';
export {
  applyDecoded,
  applyEvent,
  eventsProjection,
  windowRows,
  type EventsState,
} from './events/events.projection.js';
export {
  feedRows,
  getEvent,
  listEvents,
  parseListQuery,
  traceEvents,
  withTopic,
  type EventsSource,
} from './events/events.queries.js';
export { eventSeries, parseSeriesQuery } from './history/history.series.js';
export { getTurn, listPhases, listTurns } from './history/history.turns.js';
export type { HistoryPage } from './history/history.page.js';
export { historyCap } from './agents/agents.state.js';
export { ReadModels } from './readmodels/readmodels.js';
export { readModelProjections } from './readmodels/readmodels.boot.js';
export { decodeJson } from './runner/decode-json.js';
export { type MemoryStoreReader } from './memory/memory.projection.js';
export {
  applyIntegrationRecord,
  arrivalsOf,
  emptyIntegrationsState,
  getPassRun,
  integrationsProjection,
  listPassRuns,
  passTrims,
  RUNS_KEPT,
  type IntegrationsState,
  type SurfaceCounts,
} from './integrations/integrations.projection.js';
export { noArrivals } from './integrations/arrival-counts.js';
export { followWork, workProjection, type WorkView } from './work/work.projection.js';
export { activityPage, inboxPage, InboxReason } from './work/work.activity.js';
export { builtinViews, myWork, personState } from './work/work.personal.js';
export { savedViews } from './work/work.person.js';
export { itemDetail, projectRow, projectRows, projectSortKeys, projectCounts } from './work/work.queries.js';
export {
  containerRows,
  createPagesService,
  findContainer,
  knowledgeTools,
  listPages,
  pageDetail,
  pagesLedger,
  pagesListIdentity,
  pagesProjection,
  pagesSearch,
  queryTerms,
  readPagesCursor,
  sealPagesCursor,
  pageVectors,
  type ActiveChart,
  type PagesEmbedder,
  type PagesMeaning,
  type PageVectors,
  type PagesService,
  type PagesState,
  type PageWriteResult,
} from './pages/index.js';
export { applySpend, emptyLedger, pruneLedger } from './tokens/tokens.ledger.js';
export type { BudgetReport } from './tokens/budgets.js';
