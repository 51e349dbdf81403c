/**
 * The benchmarks' common output: each benchmark prints its own lines and, with `--json`, one last stdout line
 * holding a JSON array of rows `{bench, measure, figure, unit, baseline, ratio, target?}`; `npm run bench`
 * (run.ts) reads that line from each child and prints one table. Pure functions, so the parsing and the
 * failed-benchmark marking are tested without running anything.
 */
import { z } from 'zod';

export const BenchRow = z.object({
  bench: z.string().min(1),
  measure: z.string().min(1),
  figure: z.number().nullable(),
  unit: z.string(),
  baseline: z.number().nullable(),
  ratio: z.number().nullable(),
  // A comparison such as ">= 0.6" (of the ratio) or "< 1000 ms" (of the figure, when it names the unit).
  target: z.union([z.string(), z.number()]).nullable().optional(),
});
export type BenchRow = z.infer<typeof BenchRow>;

/** One benchmark's outcome: its rows, or why it gave none. */
export interface BenchResult {
  readonly bench: string;
  readonly rows: readonly BenchRow[];
  readonly error: string | null;
}

/** A row whose ratio is figure / baseline (null without a baseline). */
export function row(
  bench: string,
  measure: string,
  figure: number,
  unit: string,
  baseline: number | null,
  target?: string,
): BenchRow {
  const ratio = baseline === null || baseline === 0 || !Number.isFinite(figure) ? null : figure / baseline;
  return { bench, measure, figure, unit, baseline, ratio, ...(target === undefined ? {} : { target }) };
}

/** Prints the rows as the last stdout line when the process was started with `--json`. */
export function report(rows: readonly BenchRow[], argv: readonly string[] = process.argv): void {
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(rows)}\n`);
}

/**
 * Reads a finished child: rows from its last non-empty stdout line (a JSON array of rows, or one row). A
 * non-zero exit, or no parseable last line, is a failed benchmark; rows it did print are kept.
 */
export function parseBenchOutput(bench: string, stdout: string, exitCode: number | null): BenchResult {
  const last = stdout.trimEnd().split('\n').pop()?.trim() ?? '';
  let rows: BenchRow[] = [];
  let problem: string | null = null;
  try {
    const parsed: unknown = JSON.parse(last);
    const list = z.array(BenchRow).safeParse(Array.isArray(parsed) ? parsed : [parsed]);
    if (list.success) rows = list.data;
    else problem = `its JSON line is not rows: ${list.error.issues[0]?.message ?? 'invalid'}`;
  } catch {
    problem = 'it printed no JSON line of rows';
  }
  if (exitCode !== 0) return { bench, rows, error: `exited ${exitCode ?? 'on a signal'}` };
  if (problem !== null) return { bench, rows, error: problem };
  if (rows.length === 0) return { bench, rows, error: 'it printed no rows' };
  return { bench, rows, error: null };
}

const comparison = /^(ratio\s+)?(<=|>=|<|>|≤|≥)\s*(-?[\d.]+)\s*(.*)$/;

/** `ok` or `miss` against the row's target, '' when it has none or it cannot be read. */
export function verdict(r: BenchRow): '' | 'ok' | 'miss' {
  if (typeof r.target !== 'string') return '';
  const m = comparison.exec(r.target.trim());
  if (!m) return '';
  const [, ofRatio, op, limitText, unit] = m;
  const limit = Number(limitText);
  // A target naming a unit compares the figure; "ratio ..." the ratio; a bare number the ratio if any.
  const value = ofRatio !== undefined ? r.ratio : unit !== '' ? r.figure : (r.ratio ?? r.figure);
  if (value === null || !Number.isFinite(limit)) return '';
  const met =
    op === '<' ? value < limit
    : op === '>' ? value > limit
    : op === '<=' || op === '≤' ? value <= limit
    : value >= limit; // prettier-ignore
  return met ? 'ok' : 'miss';
}

/** A figure with three significant digits at most before the point, grouped. */
export function formatNumber(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return '-';
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** The one table: a line per row, and a `FAILED` line per benchmark that did not finish. */
export function formatTable(results: readonly BenchResult[]): string {
  const header = ['bench', 'measure', 'figure', 'baseline', 'ratio', 'target', ''];
  const lines: string[][] = [];
  for (const result of results) {
    for (const r of result.rows)
      lines.push([
        r.bench,
        r.measure,
        `${formatNumber(r.figure)} ${r.unit}`.trim(),
        r.baseline === null ? '-' : formatNumber(r.baseline),
        r.ratio === null ? '-' : r.ratio.toFixed(2),
        r.target === undefined || r.target === null ? '' : String(r.target),
        verdict(r),
      ]);
    if (result.error !== null)
      lines.push([result.bench, `FAILED: ${result.error}`, '', '', '', '', 'failed']);
  }
  const right = new Set([2, 3, 4]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const render = (cells: string[]): string =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [render(header), render(widths.map((w) => '-'.repeat(w))), ...lines.map(render)].join('\n');
}

/** The process's exit code: non-zero only when a benchmark failed to run (a missed target is a figure). */
export function exitCodeOf(results: readonly BenchResult[]): number {
  return results.some((r) => r.error !== null) ? 1 : 0;
}
