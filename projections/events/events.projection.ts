/**
 * The events projection (spec "Events", rules 1–3): an index of every retained event (for keyset pages,
 * lookups by id and by trace) and the newest 400 feed rows in memory (the snapshot's `events` and the first
 * pages). Order is (timestamp, id), timestamps compared as instants normalised across encodings; an event
 * whose stamp is not RFC 3339 is placed at the time the stream stored it. Types with no category are not
 * admitted; an entry equal to one held (same instant and id) is a duplicate and changes nothing.
 */
import { Streams, type StoredMessage } from '../../bus/index.js';
import {
  categoryOf,
  instantOf,
  isFailed,
  isFeedType,
  parseInstant,
  type EventRow,
} from '../../schema/index.js';
import { decodeRow } from './events.decode.js';
import { EventIndex, type SavedIndex } from './events.index.js';
import { kindOf } from './events.kinds.js';
import { applyScanned } from './events.scanned.js';
import {
  admitToWindow,
  settleWindow,
  windowRows,
  type EventsState,
  type WindowRow,
} from './events.window.js';
import type { Projection } from '../runner/runner.js';

export { windowRows, type EventsState } from './events.window.js';

export function applyEvent(state: EventsState, message: StoredMessage): void {
  state.lastAdded = null;
  if (applyScanned(state, message)) return;
  applyDecoded(state, message);
}

/** The general path (the record decoded by `decodeRow`): what the replay's fast path must agree with. */
export function applyDecoded(state: EventsState, message: StoredMessage): void {
  state.lastAdded = null;
  const decoded = decodeRow(message.data);
  if (decoded === null) return;
  const category = categoryOf(decoded.type);
  if (category === null) return;
  const instant = parseInstant(decoded.timestamp) ?? instantOf(message.time);
  const feed = isFeedType(decoded.type);
  const added = state.index.insert({
    instant,
    id: decoded.id,
    seq: message.seq,
    category,
    feed,
    agentId: decoded.agent_id,
    traceId: decoded.trace_id,
    kind: kindOf(decoded.type),
    type: decoded.type,
  });
  if (!added || !feed) return;
  // `decoded` is a fresh object of ours: set the map's category and the failure rule in place.
  decoded.category = category;
  decoded.failed = isFailed(decoded);
  const entry: WindowRow = { instant, seq: message.seq, row: decoded };
  if (admitToWindow(state, entry)) state.lastAdded = entry;
}

interface SavedEvents {
  readonly index: SavedIndex;
  readonly window: Array<{ ms: number; ns: number; seq: number; row: EventRow }>;
}

export const eventsProjection: Projection<EventsState> = {
  name: 'events',
  // 3: entries carry a kind code (events.kinds.ts); a version-2 checkpoint has none and is replayed.
  // 4: entries carry their type's code (the `type` filter of `events`); a version-3 checkpoint is replayed.
  version: 4,
  stream: Streams.Events,
  init: () => ({ index: new EventIndex(), window: [], lastAdded: null }),
  apply: applyEvent,
  // A replay of a million records would otherwise double each column and rehash the id table ten times.
  replaying: (state, messages) => state.index.reserve(messages),
  // Rows the replay admitted still point into their messages: copy their heads off them.
  replayed: settleWindow,
  checkpoint: {
    save: (state): SavedEvents => ({
      index: state.index.save(),
      window: windowRows(state).map((w) => ({ ms: w.instant.ms, ns: w.instant.ns, seq: w.seq, row: w.row })),
    }),
    load: (saved) => {
      const s = saved as Partial<SavedEvents> | null;
      if (!s || typeof s !== 'object' || !s.index || !Array.isArray(s.window)) return null;
      return {
        index: EventIndex.load(s.index),
        window: s.window.map((w) => ({ instant: { ms: w.ms, ns: w.ns }, seq: w.seq, row: w.row })),
        lastAdded: null,
      };
    },
  },
};
