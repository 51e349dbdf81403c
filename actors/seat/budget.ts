/**
 * Token budgets (spec `token_budget`, org and per seat; 0 = unlimited): one shared counter per scope and
 * calendar month (company timezone) in the coordination store, so every node of the fleet counts every
 * spend record. Checked before each model call; added to after each.
 */
import { KvConflictError, type Kv } from '../../bus/index.js';

export interface BudgetRefusal {
  readonly scope: 'org' | 'seat';
  readonly cap: number;
  readonly used: number;
  readonly window_start: string;
  readonly window_end: string;
}

export interface Budget {
  /** The first exhausted scope (org first), or null. */
  check(handle: string, caps: { org: number; seat: number }): Promise<BudgetRefusal | null>;
  /** Adds to the org's counter and, when the spend was a seat's (`handle` not null), to the seat's. */
  add(handle: string | null, tokens: number): Promise<void>;
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
const utc = formatOf('UTC');
const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone (building one costs more than a model round); UTC for an unknown zone. */
function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    try {
      formatter = formatOf(timeZone);
    } catch {
      formatter = utc;
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
  const start = startLocal - offsetMs(startLocal, formatter);
  const end = endLocal - offsetMs(endLocal, formatter);
  const month = {
    key: `${y}-${String(m + 1).padStart(2, '0')}`,
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
  };
  last = { zone: timeZone, startMs: start, endMs: end, month };
  return month;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Counters whose last write this node remembers (two per seat a month). */
const LAST_WRITTEN_MAX = 10_000;

export function createBudget(opts: {
  readonly kv: Kv;
  readonly timezone: () => string;
  readonly now?: () => number;
}): Budget {
  const now = opts.now ?? Date.now;
  const keyOf = (month: string, scope: string): string => `budget.${month}.${scope}`;
  const read = async (key: string): Promise<{ used: number; revision: number | null }> => {
    const entry = await opts.kv.get(key);
    if (!entry) return { used: 0, revision: null };
    const value = JSON.parse(decoder.decode(entry.value)) as { used?: unknown };
    return { used: typeof value.used === 'number' ? value.used : 0, revision: entry.revision };
  };
  // What this node last wrote to each counter: usually still its newest value, so an add writes without a
  // read first (one bus round trip per model call, not two). Another node's write in between makes that
  // write a conflict, and the loop reads the counter as it stands.
  const lastWritten = new Map<string, { used: number; revision: number }>();
  // Compare-and-set, retried: two nodes adding at once both count.
  const compareAndAdd = async (key: string, tokens: number): Promise<void> => {
    let known: { used: number; revision: number | null } | undefined = lastWritten.get(key);
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const { used, revision } = known ?? (await read(key));
      known = undefined;
      const data = encoder.encode(JSON.stringify({ used: used + tokens }));
      try {
        const written =
          revision === null ? await opts.kv.create(key, data) : await opts.kv.update(key, data, revision);
        // Keys name a month: the map is cleared now and then rather than kept per key forever.
        if (lastWritten.size >= LAST_WRITTEN_MAX) lastWritten.clear();
        lastWritten.set(key, { used: used + tokens, revision: written });
        return;
      } catch (error) {
        lastWritten.delete(key);
        if (!(error instanceof KvConflictError)) throw error;
      }
    }
    throw new Error(`budget counter ${key} is too contended`);
  };
  // One write per counter in flight on this node: adds that arrive meanwhile are summed into the next
  // write. A hundred seats adding at once to the org counter otherwise retried each other out.
  const queued = new Map<string, { tokens: number; waiters: Array<(error?: Error) => void> }>();
  const writing = new Set<string>();
  const drain = async (key: string): Promise<void> => {
    writing.add(key);
    for (let batch = queued.get(key); batch !== undefined; batch = queued.get(key)) {
      queued.delete(key);
      let failure: Error | undefined;
      try {
        await compareAndAdd(key, batch.tokens);
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
      }
      for (const settle of batch.waiters) settle(failure);
    }
    writing.delete(key);
  };
  const increment = (key: string, tokens: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const batch = queued.get(key) ?? { tokens: 0, waiters: [] };
      batch.tokens += tokens;
      batch.waiters.push((error) => (error ? reject(error) : resolve()));
      queued.set(key, batch);
      if (!writing.has(key)) void drain(key);
    });
  return {
    async check(handle, caps) {
      const month = monthOf(now(), opts.timezone());
      const scopes: Array<['org' | 'seat', number, string]> = [
        ['org', caps.org, keyOf(month.key, 'org')],
        ['seat', caps.seat, keyOf(month.key, `seat.${handle}`)],
      ];
      for (const [scope, cap, key] of scopes) {
        if (cap <= 0) continue;
        const { used } = await read(key);
        if (used >= cap) return { scope, cap, used, window_start: month.start, window_end: month.end };
      }
      return null;
    },
    async add(handle, tokens) {
      if (tokens <= 0) return;
      const month = monthOf(now(), opts.timezone()).key;
      await Promise.all([
        increment(keyOf(month, 'org'), tokens),
        handle === null ? Promise.resolve() : increment(keyOf(month, `seat.${handle}`), tokens),
      ]);
    },
  };
}
