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
} from './config.projection.js';
export { defaultPayloadCacheLimits, type PayloadCacheLimits } from './config.payloads.js';
export { parsePayload, splitRecord } from './config.record.js';
export { followConfig, type ConfigFollowOptions, type ConfigView } from './config.follow.js';
export {
  applySecretFact,
  emptySecretsState,
  listSecrets,
  metaOfSecret,
  secretRecord,
  type SecretFact,
  type SecretsState,
} from './secrets.projection.js';
export { followSecrets, type SecretsView } from './secrets.follow.js';
export { secretsThenEnv, storeResolver } from './secrets.resolve.js';
export {
  applyScheduleEvent,
  emptySchedulesState,
  RECENT_RUNS_LIMIT,
  recentRuns,
  schedulesAnswer,
  schedulesProjection,
  type SchedulesState,
} from './schedules.projection.js';
export { followScheduleRuns, type ScheduleRunsView } from './schedules.follow.js';
export { openCheckpoints, type Checkpoint, type CheckpointStore } from './checkpoints.js';
export { runProjection, type Projection, type RunnerOptions, type RunningProjection } from './runner.js';
export { QueryError, type QueryErrorCodeName } from './query-error.js';
export {
  SectionRegistry,
  SnapshotKeys,
  type PushMode,
  type SectionListener,
  type SnapshotKey,
  type SnapshotSection,
} from './sections.js';
export { categoryCodes, EventIndex, type IndexEntry, type IndexFilter } from './events.index.js';
export { EventKind } from './events.kinds.js';
export { decodeRecord, decodeRow } from './events.decode.js';
export { checkRow } from './events.check.js';
export {
  applyDecoded,
  applyEvent,
  eventsProjection,
  FEED_WINDOW,
  windowRows,
  type EventsState,
  type WindowRow,
} from './events.projection.js';
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
} from './events.queries.js';
export {
  eventSeries,
  parseSeriesQuery,
  SeriesBucket,
  type CategoryCounts,
  type SeriesAnswer,
  type SeriesPoint,
  type SeriesQuery,
} from './history.series.js';
export {
  getTurn,
  listPhases,
  listTurns,
  type PhasesAnswer,
  type TurnAnswer,
  type TurnTokens,
} from './history.turns.js';
export { HISTORY_PAGE_DEFAULT, HISTORY_PAGE_MAX } from './history.params.js';
export type { HistoryPage } from './history.page.js';
export type { PhaseRow, PhaseSummary, TurnRow } from './history.rows.js';
export {
  ReadModels,
  type Coverage,
  type EventModels,
  type ReadModelsOptions,
  type SpendModels,
} from './readmodels.js';
export {
  decodeJson,
  eventSeedMs,
  readModelProjections,
  spendSeedMs,
  type ReadModelProjections,
} from './readmodels.boot.js';
export { SectionHub } from './snapshot-section.js';
export { agentsProjection, seedBound } from './agents.projection.js';
export { memoryProjection, type MemoryStoreReader, type StoredMemory } from './memory.projection.js';
export { sandboxesProjection } from './sandboxes.projection.js';
export { tokensProjection } from './tokens.ledger.js';
export type { ReadModel } from './read-model.js';
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
