/**
 * The replay's fast path for one stored event: its head read in place by `scanHead`, the id staged into the
 * index's arena, type, seat and stamp looked up from their bytes; no object is built unless the event
 * enters the window (and then only its head bytes are kept). Answers false whenever the general decoder
 * must decide (`events.projection.ts`), which then gives the outcome it always gave.
 */
import type { StoredMessage } from '../../bus/index.js';
import { categoryOf, isFailed, isFeedType, parseInstant, type EventCategory } from '../../schema/index.js';
import { scanAnyOrder } from './events.anyorder.js';
import { Head, scanWriterOrder } from './events.head.js';
import { hashAscii } from './events.ids.js';
import { categoryCodes, flagsOfKind } from './events.index.js';
import { kindOf } from './events.kinds.js';
import { admitToWindow, HeldRow, ReplayWindow, type EventsState } from './events.window.js';

interface TypeInfo {
  readonly bytes: Uint8Array;
  /** Null when the type is not admitted. */
  readonly category: EventCategory | null;
  readonly code: number;
  /** The index's flags for the type: category code, feed bit and kind bits. */
  readonly flags: number;
  readonly feed: boolean;
  readonly failure: boolean;
}

/** Types seen so far, by the FNV hash of their bytes (a small set: the cache stops growing at 4,096). */
const typeCache = new Map<number, TypeInfo>();
const categoryNames = categoryCodes.map((c) => Buffer.from(c, 'latin1'));
/** Buffer's native search, applied to a plain Uint8Array without wrapping it (no object a record). */
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with `.call` on the record's bytes
const indexOfBytes = (Buffer.prototype as Buffer).indexOf as (
  this: Uint8Array,
  value: Uint8Array,
  from: number,
) => number;
const agentKey = Buffer.from('"agent_id"');
const head = new Head();
const trace = new Uint32Array(2);
/** Category names by length. */
const categoryByLength = new Map<number, Uint8Array[]>();
for (const c of categoryNames) categoryByLength.set(c.length, [...(categoryByLength.get(c.length) ?? []), c]);
const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const latin1 = (b: Uint8Array, start: number, end: number): string =>
  Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('latin1');

function sameBytes(b: Uint8Array, start: number, end: number, want: Uint8Array): boolean {
  if (end - start !== want.length) return false;
  for (let i = 0; i < want.length; i += 1) if (b[start + i] !== want[i]) return false;
  return true;
}

function typeOf(b: Uint8Array, start: number, end: number): TypeInfo {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i += 1) h = Math.imul(h ^ (b[i] as number), 0x01000193) >>> 0;
  const hit = typeCache.get(h);
  if (hit !== undefined && sameBytes(b, start, end, hit.bytes)) return hit;
  const type = latin1(b, start, end);
  const category = categoryOf(type);
  const code = category === null ? -1 : categoryCodes.indexOf(category);
  const feed = isFeedType(type);
  const info: TypeInfo = {
    bytes: b.slice(start, end),
    category,
    code,
    flags: code | (feed ? 0x80 : 0) | flagsOfKind(kindOf(type)),
    feed,
    failure: isFailed({ type, failed: false }),
  };
  if (hit === undefined && typeCache.size < 4096) typeCache.set(h, info);
  return info;
}

const digit = (b: Uint8Array, i: number): number => {
  const c = (b[i] as number) - 48;
  return c >= 0 && c <= 9 ? c : NaN;
};

/** Where `instantFrom` puts its answer (no object a record). */
let stampMs = 0;
let stampNs = 0;
/** The last whole second read (`YYYY-MM-DDTHH:MM:SS`) and its instant: consecutive events mostly share it. */
const lastSecond = new Uint8Array(19);
let lastSecondMs = NaN;

function sameSecond(b: Uint8Array, at: number): boolean {
  // Seconds and minutes differ first: compare from the end.
  for (let k = 18; k >= 0; k -= 1) if (b[at + k] !== lastSecond[k]) return false;
  return true;
}

/** The instant of the whole second at `at` (`YYYY-MM-DDTHH:MM:SS`, checked), NaN when it is not one. */
function secondAt(b: Uint8Array, at: number): number {
  const y = digit(b, at) * 1000 + digit(b, at + 1) * 100 + digit(b, at + 2) * 10 + digit(b, at + 3);
  const mo = digit(b, at + 5) * 10 + digit(b, at + 6);
  const day = digit(b, at + 8) * 10 + digit(b, at + 9);
  const hh = digit(b, at + 11) * 10 + digit(b, at + 12);
  const mi = digit(b, at + 14) * 10 + digit(b, at + 15);
  const sec = digit(b, at + 17) * 10 + digit(b, at + 18);
  const leap = mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 1 : 0;
  // Date.UTC maps years 0..99 onto 1900..1999: those (and anything odd) take the general parser.
  if (
    y >= 100 &&
    mo >= 1 &&
    mo <= 12 &&
    day >= 1 &&
    day <= (monthDays[mo - 1] as number) + leap &&
    hh <= 23 &&
    mi <= 59 &&
    sec <= 59
  )
    return Date.UTC(y, mo - 1, day, hh, mi, sec, 0);
  return NaN;
}

/**
 * Reads the stamp into `stampMs`/`stampNs`: `YYYY-MM-DDTHH:MM:SS.mmmZ` (what `newEvent` writes) digit by
 * digit, anything else through `parseInstant`; false when it is not RFC 3339.
 */
function instantFrom(b: Uint8Array, start: number, end: number): boolean {
  const at = start;
  if (
    end - start === 24 &&
    b[at + 23] === 0x5a &&
    b[at + 4] === 0x2d &&
    b[at + 7] === 0x2d &&
    b[at + 10] === 0x54 &&
    b[at + 13] === 0x3a &&
    b[at + 16] === 0x3a &&
    b[at + 19] === 0x2e
  ) {
    const milli = digit(b, at + 20) * 100 + digit(b, at + 21) * 10 + digit(b, at + 22);
    if (milli >= 0) {
      if (!sameSecond(b, at)) {
        lastSecondMs = secondAt(b, at);
        lastSecond.set(b.subarray(at, at + 19));
      }
      const ms = lastSecondMs + milli;
      if (Number.isFinite(ms)) {
        stampMs = ms;
        stampNs = 0;
        return true;
      }
    }
  }
  const parsed = parseInstant(latin1(b, start, end));
  if (parsed === null) return false;
  stampMs = parsed.ms;
  stampNs = parsed.ns;
  return true;
}

/** Fills `h` from the bytes of one stored record; false when the general decoder must decide. */
function scanHead(b: Uint8Array, h: Head): boolean {
  return scanWriterOrder(b, h) || scanAnyOrder(b, h);
}

/** Folds one message the fast way; false when the general decoder must decide. */
export function applyScanned(state: EventsState, message: StoredMessage): boolean {
  const b = message.data;
  const h = head;
  if (!scanHead(b, h)) return false;
  const named = categoryByLength.get(h.categoryEnd - h.categoryStart);
  if (named === undefined) return false;
  let known = false;
  for (const c of named) if (sameBytes(b, h.categoryStart, h.categoryEnd, c)) known = true;
  if (!known) return false;
  // A seat after the payload (another key order) is the general decoder's to find; a topic there is looked
  // for only if the row is kept (`HeldRow.settle`).
  if (h.agentStart < 0 && indexOfBytes.call(b, agentKey, h.end) >= 0) return false;
  const info = typeOf(b, h.typeStart, h.typeEnd);
  if (info.category === null) return true;
  if (!instantFrom(b, h.timestampStart, h.timestampEnd)) {
    stampMs = message.time.getTime();
    stampNs = 0;
  }
  const ms = stampMs;
  const ns = stampNs;
  const index = state.index;
  const agentCode = h.agentStart < 0 ? 0 : index.internAscii(b, h.agentStart, h.agentEnd);
  hashAscii(b, h.traceStart, h.traceEnd, trace);
  index.stageAscii(b, h.idStart, h.idEnd);
  const added = index.insertStaged(
    ms,
    ns,
    message.seq,
    info.flags,
    agentCode,
    trace[0] as number,
    trace[1] as number,
    index.internTypeAscii(b, h.typeStart, h.typeEnd),
  );
  if (!added || !info.feed) return true;
  const failed = h.failed || info.failure;
  if (state.live !== true) {
    // Replaying: most rows offered now are pushed out of the window by later ones; none is made yet.
    (state.staged ??= new ReplayWindow()).offer(
      ms,
      ns,
      message.seq,
      b,
      h.end,
      info.code,
      failed,
      h.idStart,
      h.idEnd,
      h.topic,
    );
    return true;
  }
  const entry = new HeldRow(
    ms,
    ns,
    message.seq,
    b,
    h.end,
    info.category,
    failed,
    h.idStart,
    h.idEnd,
    h.topic,
  );
  if (admitToWindow(state, entry)) {
    entry.settle();
    state.lastAdded = entry;
  }
  return true;
}
