/**
 * The events projection (spec "Events", rules 1–3): an index of every retained event (for keyset pages,
 * lookups by id and by trace) and the newest 400 feed rows in memory (the snapshot's `events` and the first
 * pages). Order is (timestamp, id), timestamps compared as instants normalised across encodings; an event
 * whose stamp is not RFC 3339 is placed at the time the stream stored it. Types with no category are not
 * admitted; an entry equal to one held (same instant and id) is a duplicate and changes nothing.
 */
import { Streams, Subjects, type StoredMessage } from '../bus/index.js';
import {
  categoryOf,
  compareInstants,
  instantOf,
  isFailed,
  isFeedType,
  parseInstant,
  type EventRow,
  type Instant,
} from '../schema/index.js';
import { decodeRow } from './events.decode.js';
import { EventIndex, type SavedIndex } from './events.index.js';
import type { Projection } from './runner.js';

/** Feed rows held in memory (spec rule 2: newest 400 events). */
export const FEED_WINDOW = 400;

export interface WindowRow {
  readonly instant: Instant;
  readonly seq: number;
  readonly row: EventRow;
}

export interface EventsState {
  readonly index: EventIndex;
  /**
   * The newest feed rows, oldest first: the last FEED_WINDOW entries count (the array may hold up to twice
   * that before it is trimmed, so an in-order append costs no shift). Read it through `windowRows`.
   */
  window: WindowRow[];
  /** The feed row the last applied message added (null when it added none): what a live push sends. */
  lastAdded: WindowRow | null;
}

/** The window's rows, oldest first, at most FEED_WINDOW. */
export function windowRows(state: EventsState): WindowRow[] {
  const w = state.window;
  return w.length > FEED_WINDOW ? w.slice(w.length - FEED_WINDOW) : w;
}

const compareRows = (a: WindowRow, b: WindowRow): number =>
  compareInstants(a.instant, b.instant) || (a.row.id === b.row.id ? 0 : a.row.id < b.row.id ? -1 : 1);

/** Keeps the window sorted and bounded; an event older than a full window's oldest row stays out of it. */
function admitToWindow(state: EventsState, entry: WindowRow): boolean {
  const w = state.window;
  const last = w[w.length - 1];
  if (last === undefined || compareRows(last, entry) < 0) w.push(entry);
  else {
    const oldest = w.length >= FEED_WINDOW ? w[w.length - FEED_WINDOW] : undefined;
    if (oldest !== undefined && compareRows(oldest, entry) > 0) return false;
    let at = w.length;
    while (at > 0 && compareRows(w[at - 1] as WindowRow, entry) > 0) at -= 1;
    w.splice(at, 0, entry);
  }
  if (w.length >= 2 * FEED_WINDOW) state.window = w.slice(w.length - FEED_WINDOW);
  return true;
}

export function applyEvent(state: EventsState, message: StoredMessage): void {
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
  version: 1,
  stream: Streams.Events,
  subjects: Subjects.events,
  init: () => ({ index: new EventIndex(), window: [], lastAdded: null }),
  apply: applyEvent,
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
