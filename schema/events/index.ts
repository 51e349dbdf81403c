export { EventCategory } from './category-set.js';
export { EventRecord, EventRecordOpenPayload, isFailed } from './record.js';
export { SpendPhase, SpendRecord } from './spend.js';
export {
  admissionOf,
  categoryOf,
  EventTypeCategories,
  ExcludedEventTypes,
  isFeedType,
  isStoredType,
  recordCategoryOf,
} from './categories.js';
export {
  canonicalInstant,
  compareInstants,
  compareInstantMs,
  compareStamps,
  formatInstant,
  instantMs,
  instantOf,
  isNewer,
  isNotOlder,
  parseCursorInstant,
  parseInstant,
  type Instant,
} from './instant.js';
export { Coverage, EventAnswer, EventRow, EventsPage, toFullEvent, toRow, TraceAnswer } from './rows.js';
export * as Payloads from './payloads/index.js';
