/**
 * Token budgets (spec `token_budget`, org and per seat; 0 = unlimited), counted per calendar month in the
 * company timezone from the spend records themselves — the records `/budgets` sums too. A node that checks
 * a cap reads its month of `SVC_SPEND` once and follows it, so every node counts every record (once per
 * id) and a check costs no bus round trip; a record this node stores counts at once, before its copy is
 * read back. No separate counter is written, so the count cannot drift from the records (a crash between
 * a record and a counter write once lost the add). Checked before each model call.
 */
import type { Logger } from 'pino';
import { Streams, type Bus, type StoredMessage, type Subscription } from '../../bus/index.js';
import { instantMs, SpendRecord } from '../../schema/index.js';
import { builtSpendText } from './spend-bytes.js';

export interface BudgetRefusal {
  readonly scope: 'org' | 'seat';
  readonly cap: number;
  readonly used: number;
  readonly window_start: string;
  readonly window_end: string;
}

export interface Budget {
  /**
   * The first exhausted scope (org first), or null; no cap set answers at once. The first check with a
   * cap reads the month's records first (a failure to read them throws, and the next check tries again).
   */
  check(handle: string, caps: { org: number; seat: number }): Promise<BudgetRefusal | null>;
  /** A spend record this node stored: counted now (its copy read back later is the same id). */
  count(record: SpendRecord): void;
  /** Stops following the spend records. */
  stop(): Promise<void>;
}

const formatOf = (timeZone: string): Intl.DateTimeFormat =>
  new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * One formatter per zone (building one costs more than a model round), built at first use rather than
 * at every node's start; UTC for an unknown zone.
 */
function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    try {
      formatter = formatOf(timeZone);
    } catch {
      formatter = formatterOf('UTC');
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Offset of the formatter's zone from UTC at `ms`, in ms. */
function offsetMs(ms: number, formatter: Intl.DateTimeFormat): number {
  const parts = formatter.formatToParts(new Date(ms));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const local = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return local - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant local time `localMs` (read as UTC) happens at in the formatter's zone. The offset is read at
 * the guess, not at `localMs`: when the clocks change within the offset's width of it (Sydney's DST began at
 * 02:00 on 1 October 2023), the offset at `localMs` is the other side's, and the month would open an hour off.
 */
function instantOfLocal(localMs: number, formatter: Intl.DateTimeFormat): number {
  let guess = localMs - offsetMs(localMs, formatter);
  for (let i = 0; i < 2; i += 1) {
    const next = localMs - offsetMs(guess, formatter);
    if (next === guess) break;
    guess = next;
  }
  return guess;
}

type Month = { readonly key: string; readonly start: string; readonly end: string };
/** The month last asked for: every model call asks, and it changes once a month. */
let last: { zone: string; startMs: number; endMs: number; month: Month } | null = null;

/** The calendar month holding `ms` in `timeZone`: its key and its bounds as instants. */
export function monthOf(ms: number, timeZone: string): Month {
  if (last !== null && last.zone === timeZone && ms >= last.startMs && ms < last.endMs) return last.month;
  const formatter = formatterOf(timeZone);
  const local = new Date(ms + offsetMs(ms, formatter));
  const y = local.getUTCFullYear();
  const m = local.getUTCMonth();
  const startLocal = Date.UTC(y, m, 1);
  const endLocal = Date.UTC(y, m + 1, 1);
  const start = instantOfLocal(startLocal, formatter);
  const end = instantOfLocal(endLocal, formatter);
  const month = {
    key: `${y}-${String(m + 1).padStart(2, '0')}`,
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
  };
  last = { zone: timeZone, startMs: start, endMs: end, month };
  return month;
}

/** The month being counted: its bounds, the ids already counted, and the sums. */
interface Counted {
  readonly zone: string;
  readonly month: Month;
  readonly startMs: number;
  readonly endMs: number;
  readonly ids: Set<string>;
  org: number;
  readonly bySeat: Map<string, number>;
  /** Follows the records stored after the month's first read; null until that read is done. */
  tail: Subscription | null;
}

/** Records read from this long before the month's start: a node's clock may run ahead of the store's. */
const READ_MARGIN_MS = 86_400_000;

const decoder = new TextDecoder();

export function createBudget(opts: {
  readonly bus: Bus;
  readonly timezone: () => string;
  readonly now?: () => number;
  readonly logger?: Logger;
}): Budget {
  const now = opts.now ?? Date.now;
  let counted: Counted | null = null;
  /** The month's first read, shared by the checks that wait for it. */
  let reading: Promise<Counted> | null = null;
  let stopped = false;

  /** `arrivedMs`: when the stream stored it (a record this node just stored: now). */
  const add = (c: Counted, record: SpendRecord, arrivedMs: number): void => {
    if (c.ids.has(record.id)) return;
    // Placed as the ledger of `/budgets` places it: at its stamp, or at its arrival when stamped ahead —
    // the stored time, not this node's clock, so a restart or another node counts it in the same month.
    // Read as every read model reads an instant: `Date.parse` took spellings the ledger skips and skipped
    // ones it counts (epoch digits, a comma fraction), so a cap could refuse on spend /budgets did not show.
    const stamped = instantMs(record.timestamp);
    if (stamped === null) return;
    const ms = Math.min(stamped, arrivedMs);
    if (ms < c.startMs || ms >= c.endMs) return;
    c.ids.add(record.id);
    c.org += record.total_tokens;
    if (record.handle) c.bySeat.set(record.handle, (c.bySeat.get(record.handle) ?? 0) + record.total_tokens);
  };
  const fold = (c: Counted, msg: StoredMessage): void => {
    const text = decoder.decode(msg.data);
    // This node's own record (most often counted already, when it was stored): the one it built and
    // typed, not a decoded and checked copy.
    const own = builtSpendText(text);
    if (own !== undefined) return add(c, own, msg.time.getTime());
    let parsed;
    try {
      parsed = SpendRecord.safeParse(JSON.parse(text));
    } catch {
      return; // not JSON: not a spend record this build reads
    }
    if (parsed.success) add(c, parsed.data, msg.time.getTime());
  };

  /** Reads the month holding now (in the company timezone) from the store, then follows it. */
  const read = async (zone: string, month: Month): Promise<Counted> => {
    const c: Counted = {
      zone,
      month,
      startMs: Date.parse(month.start),
      endMs: Date.parse(month.end),
      ids: new Set(),
      org: 0,
      bySeat: new Map(),
      tail: null,
    };
    const { lastSeq } = await opts.bus.streamInfo(Streams.Spend);
    const since = new Date(c.startMs - READ_MARGIN_MS);
    for await (const msg of opts.bus.replay(Streams.Spend, { since, toSeq: lastSeq })) fold(c, msg);
    c.tail = await opts.bus.follow(Streams.Spend, { fromSeq: lastSeq + 1 }, (msg) => fold(c, msg));
    return c;
  };

  /** The month now, read once; a new month or a new timezone is read afresh. */
  const current = async (): Promise<Counted> => {
    const zone = opts.timezone();
    const at = now();
    const c = counted;
    if (c !== null && c.zone === zone && at >= c.startMs && at < c.endMs) return c;
    if (reading === null) {
      const month = monthOf(at, zone);
      reading = read(zone, month).then(
        async (fresh) => {
          const previous = counted;
          counted = fresh;
          reading = null;
          await previous?.tail?.stop();
          if (stopped) await fresh.tail?.stop();
          return fresh;
        },
        (error: unknown) => {
          reading = null;
          opts.logger?.warn({ err: error }, 'the month of spend records could not be read');
          throw error;
        },
      );
    }
    return reading;
  };

  return {
    async check(handle, caps) {
      if (caps.org <= 0 && caps.seat <= 0) return null;
      const c = await current();
      const used = { org: c.org, seat: c.bySeat.get(handle) ?? 0 };
      for (const scope of ['org', 'seat'] as const) {
        const cap = caps[scope];
        if (cap > 0 && used[scope] >= cap)
          return { scope, cap, used: used[scope], window_start: c.month.start, window_end: c.month.end };
      }
      return null;
    },
    count(record) {
      // Before the month's first read there is nothing to add to: that read finds the record stored.
      if (counted !== null) add(counted, record, now());
    },
    async stop() {
      stopped = true;
      await counted?.tail?.stop();
    },
  };
}
