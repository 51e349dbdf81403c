/** Numbers and times as people read them. */
export function count(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  // Compared as rounded to one decimal, so 999,950 reads 1.0M rather than 1000.0k.
  const abs = Math.abs(n);
  if (abs >= 999.95e6) return `${(n / 1e9).toFixed(1)}B`;
  if (abs >= 999.95e3) return `${(n / 1e6).toFixed(1)}M`;
  if (abs >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return n.toLocaleString('en');
}

/** `text` cut to at most `max` characters (by code point), ending `…` when cut. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

export function percent(ratio: number | null | undefined): string {
  return ratio === null || ratio === undefined ? '—' : `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`;
}

const clock: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
};

/** One formatter per zone: making one costs far more than using it, and a feed page draws a hundred times. */
const clocks = new Map<string, Intl.DateTimeFormat>();

function clockIn(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let format = clocks.get(key);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-GB', { ...clock, timeZone });
    } catch {
      // A zone this browser does not know: the browser's own, still named.
      format = clockIn(undefined);
    }
    clocks.set(key, format);
  }
  return format;
}

/**
 * An instant as `2026-12-31 23:00:00 UTC`: always with its zone, so a time is never read in the wrong one.
 * In `timeZone` (a schedule's, a budget window's) when given, else the browser's.
 */
export function time(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const parts = clockIn(timeZone).formatToParts(d);
  const p = Object.fromEntries(parts.map((part) => [part.type, part.value]));
  return `${p['year']}-${p['month']}-${p['day']} ${p['hour']}:${p['minute']}:${p['second']} ${p['timeZoneName']}`;
}

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const s = Math.round((now - new Date(iso).getTime()) / 1000);
  if (!Number.isFinite(s)) return iso;
  const abs = Math.abs(s);
  const unit =
    abs < 60
      ? `${abs}s`
      : abs < 3600
        ? `${Math.round(abs / 60)}m`
        : abs < 86400
          ? `${Math.round(abs / 3600)}h`
          : `${Math.round(abs / 86400)}d`;
  return s >= 0 ? `${unit} ago` : `in ${unit}`;
}

/** A time taken, `—` for none. Where the node's 0 means not measured, the caller says so. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s`;
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? '';
}
