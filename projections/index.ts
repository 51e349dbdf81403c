export {
  activationHistory,
  activeRevision,
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
export { defaultPayloadCacheLimits, type PayloadCacheLimits } from './config/config.payloads.js';
export { parsePayload, splitRecord } from './config/config.record.js';
export {
  configProjection,
  followConfig,
  type ConfigFollowOptions,
  type ConfigView,
} from './config/config.view.js';
export {
  applySecretFact,
  emptySecretsState,
  listSecrets,
  metaOfSecret,
  secretRecord,
  type SecretFact,
  type SecretsState,
} from './secrets/secrets.projection.js';
export { followSecrets, secretsProjection, type SecretsView } from './secrets/secrets.view.js';
export { secretsThenEnv, storeResolver } from './secrets/secrets.resolve.js';
export {
  applyScheduleEvent,
  emptySchedulesState,
  RECENT_RUNS_LIMIT,
  recentRuns,
  schedulesAnswer,
  type SchedulesState,
} from './schedules/schedules.projection.js';
export {
  followScheduleRuns,
  schedulesProjection,
  type ScheduleRunsView,
} from './schedules/schedules.view.js';
export { openCheckpoints, type Checkpoint, type CheckpointStore } from './runner/checkpoints.js';
export { projectionPositions, type ProjectionPosition } from './runner/positions.js';
export {
  runProjection,
  type AnyProjection,
  type BucketProjection,
  type KeyWatch,
  type Projection,
  type RunnerOptions,
  type RunningProjection,
} from './runner/runner.js';
export { QueryError, type QueryErrorCodeName } from './query/query-error.js';
export {
  SectionRegistry,
  SnapshotKeys,
  type PushMode,
  type SectionListener,
  type SnapshotKey,
  type SnapshotSection,
} from './snapshot/sections.js';
export { categoryCodes, EventIndex, type IndexEntry, type IndexFilter } from './events/events.index.js';
export { EventKind } from './events/events.kinds.js';
export { decodeRecord, decodeRow } from './events/events.decode.js';
export { checkRow } from './events/events.check.js';
export {
  applyDecoded,
  applyEvent,
  eventsProjection,
  FEED_WINDOW,
  windowRows,
  type EventsState,
  type WindowRow,
} from './events/events.projection.js';
export {
  EVENTS_PAGE_DEFAULT,
  EVENTS_PAGE_MAX,
  feedRows,
  formatInstant,
  getEvent,
  listEvents,
  parseListQuery,
  TRACE_MAX,
  traceEvents,
  type EventsSource,
  type ListQuery,
} from './events/events.queries.js';
export {
  eventSeries,
  parseSeriesQuery,
  SeriesBucket,
  type CategoryCounts,
  type SeriesAnswer,
  type SeriesPoint,
  type SeriesQuery,
} from './history/history.series.js';
export {
  getTurn,
  listPhases,
  listTurns,
  type PhasesAnswer,
  type TurnAnswer,
  type TurnTokens,
} from './history/history.turns.js';
export { HISTORY_PAGE_DEFAULT, HISTORY_PAGE_MAX } from './history/history.params.js';
export type { HistoryPage } from './history/history.page.js';
export type { PhaseRow, PhaseSummary, TurnRow } from './history/history.rows.js';
export {
  ReadModels,
  type Coverage,
  type ReadModelsOptions,
} from './readmodels/readmodels.js';
export {
  decodeJson,
  eventSeedMs,
  readModelProjections,
  spendSeedMs,
  type ReadModelProjections,
} from './readmodels/readmodels.boot.js';
export { SectionHub } from './snapshot/snapshot-section.js';
export { seedBound } from './agents/agents.projection.js';
export { type MemoryStoreReader, type StoredMemory } from './memory/memory.projection.js';
export {
  applyIntegrationRecord,
  arrivalsOf,
  emptyIntegrationsState,
  getPassRun,
  integrationsProjection,
  listPassRuns,
  noArrivals,
  RUNS_KEPT,
  type IntegrationsState,
  type SurfaceCounts,
} from './integrations/integrations.projection.js';
export { decodeWorkRecord, followWork, workProjection, type WorkView } from './work/work.projection.js';
export {
  activityPage,
  inboxPage,
  InboxReason,
  type ActivityQuery,
  type InboxQuery,
} from './work/work.activity.js';
export { builtinViews, myWork, personState } from './work/work.personal.js';
export {
  itemDetail,
  itemRow,
  listItems,
  projectRow,
  projectRows,
  projectSortKeys,
  taskCounts,
  type ItemQuery,
  type ProjectQuery,
} from './work/work.queries.js';
export {
  applyPageRecord,
  containerRows,
  createPagesService,
  emptyPagesState,
  findContainer,
  knowledgeTools,
  listPages,
  PAGE_LIST_DEFAULT,
  PAGE_LIST_MAX,
  pageDetail,
  pagesLedger,
  pagesProjection,
  queryTerms,
  resolvePage,
  titleKey,
  type ActiveChart,
  type Page,
  type PageDetail,
  type PageList,
  type PagesService,
  type PagesState,
  type PageWriteResult,
} from './pages/index.js';
