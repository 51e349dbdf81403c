/**
 * `/tokens/series`: spend on a time axis. One bucket per company day (`bucket=day`, default 14 buckets,
 * 1..90) or per ISO week starting Monday (`bucket=week`, default 12, 1..13 — the oldest of 13 weeks starts 84
 * days before this week's Monday, so up to 91 company days are read, inside the 92 the ledger keeps), in the
 * company timezone, oldest first, empty buckets included.
 * Each bucket splits its total into bands: by phase (default), by model, or by seat (`band=agent`).
 */
import type { SpendRecord } from '../../schema/index.js';
import { clampInt, textParam } from '../query/params.js';
import { matchesSeat } from './rollup-fold.js';
import { addRow, estimatedOf, zeroRow, type TokenRow } from './token-rows.js';
import { ledgerEntries, ledgerSlots, type TokenLedger } from './tokens.ledger.js';
import {
  addDays,
  dateKey,
  isoWeekLabel,
  isoWeekStart,
  localDate,
  startOfLocalDay,
  type LocalDate,
} from '../time/zoned-time.js';

export const SeriesBucket = { Day: 'day', Week: 'week' } as const;
export type SeriesBucket = (typeof SeriesBucket)[keyof typeof SeriesBucket];
export const SeriesBand = { Phase: 'phase', Model: 'model', Agent: 'agent' } as const;
export type SeriesBand = (typeof SeriesBand)[keyof typeof SeriesBand];

export interface SeriesParams {
  readonly bucket: SeriesBucket;
  readonly buckets: number;
  readonly band: SeriesBand;
  readonly agent_role: string | null;
}

/** Reads the parameters; an unknown `bucket` or `band` value is a refusal (the caller answers 400). */
export function seriesParams(query: URLSearchParams): SeriesParams | { invalid: string } {
  const bucket = query.get('bucket') ?? 'day';
  const band = query.get('band') ?? 'phase';
  if (bucket !== 'day' && bucket !== 'week')
    return { invalid: `bucket must be day or week, not "${bucket}"` };
  if (band !== 'phase' && band !== 'model' && band !== 'agent')
    return { invalid: `band must be phase, model or agent, not "${band}"` };
  return {
    bucket,
    band,
    buckets:
      bucket === 'day'
        ? clampInt(query.get('buckets'), 14, 1, 90)
        : clampInt(query.get('buckets'), 12, 1, 13),
    agent_role: textParam(query.get('agent_role')),
  };
}

/** The `agent` band of spend on no seat's behalf (an auxiliary worker's fleet-wide work); never a handle. */
export const noSeatBand = '(no seat)';

/** What the series reads of a record or of an older quarter hour's sum. */
type Spent = Pick<SpendRecord, 'handle' | 'role' | 'phase' | 'model'> & TokenRow;

const bandOf: Record<SeriesBand, (r: Pick<Spent, 'handle' | 'phase' | 'model'>) => string> = {
  phase: (r) => r.phase,
  model: (r) => r.model,
  agent: (r) => (r.handle === '' ? noSeatBand : r.handle),
};

const spentOf = (r: SpendRecord): Spent => ({
  handle: r.handle,
  role: r.role,
  phase: r.phase,
  model: r.model,
  input_tokens: r.input_tokens,
  output_tokens: r.output_tokens,
  total_tokens: r.total_tokens,
  calls: 1,
  estimated_tokens: estimatedOf(r),
});

export interface SeriesBucketRow extends TokenRow {
  start: string;
  end: string;
  label: string;
  bands: Record<string, number>;
}

/**
 * Older days' quarter-hour sums and the last 32 days' whole records in [from, to), merged in time order
 * (a record that aged into a sum while a younger one stayed whole can interleave at the boundary).
 */
function* inTimeOrder(
  ledger: TokenLedger,
  from: number,
  to: number,
): Generator<{ ms: number; spent: Spent }> {
  const slots = ledgerSlots(ledger, from, to);
  const entries = ledgerEntries(ledger, from, to);
  let i = 0;
  let j = 0;
  while (i < slots.length || j < entries.length) {
    const slot = slots[i];
    const entry = entries[j];
    if (slot !== undefined && (entry === undefined || slot.ms <= entry.ms)) {
      yield { ms: slot.ms, spent: slot };
      i += 1;
    } else if (entry !== undefined) {
      yield { ms: entry.ms, spent: spentOf(entry.record) };
      j += 1;
    }
  }
}

export function tokenSeries(ledger: TokenLedger, params: SeriesParams, timeZone: string) {
  const now = ledger.now();
  const today = localDate(now, timeZone);
  const step = params.bucket === 'day' ? 1 : 7;
  const last: LocalDate = params.bucket === 'day' ? today : isoWeekStart(today);
  const starts: LocalDate[] = [];
  for (let i = params.buckets - 1; i >= 0; i -= 1) starts.push(addDays(last, -i * step));
  const edges = [...starts, addDays(last, step)].map((d) => startOfLocalDay(d, timeZone));
  const rows: SeriesBucketRow[] = starts.map((d, i) => ({
    start: new Date(edges[i] as number).toISOString(),
    end: new Date(edges[i + 1] as number).toISOString(),
    label: params.bucket === 'day' ? dateKey(d) : isoWeekLabel(d),
    ...zeroRow(),
    bands: {},
  }));
  const bandTotals = new Map<string, number>();
  const from = edges[0] as number;
  const to = edges[edges.length - 1] as number;
  const match = matchesSeat(params.agent_role);
  let b = 0;
  for (const { ms, spent: entry } of inTimeOrder(ledger, from, to)) {
    if (!match(entry)) continue;
    while (b < rows.length - 1 && ms >= (edges[b + 1] as number)) b += 1;
    const row = rows[b] as SeriesBucketRow;
    addRow(row, entry);
    const band = bandOf[params.band](entry);
    row.bands[band] = (row.bands[band] ?? 0) + entry.total_tokens;
    bandTotals.set(band, (bandTotals.get(band) ?? 0) + entry.total_tokens);
  }
  return {
    bucket: params.bucket,
    band: params.band,
    timezone: timeZone,
    agent_role: params.agent_role ?? '',
    bands: [...bandTotals].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).map(([name]) => name),
    buckets: rows,
  };
}
