/**
 * Counters and histograms kept in plain cells, one per label set, written in the Prometheus text format
 * when scraped: a count touches one cell (a Map lookup, and a bucket search for a histogram). prom-client's
 * counter and histogram validate and hash a label object on every call, which the bus publishes and spend
 * records of every tool round paid several times over (request-metrics.ts does the same for requests).
 */

/** A label value as the text format writes it: backslash, double quote and line feed escaped. */
const escapeLabel = (value: string): string =>
  value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');

/** Labels written out (`method="GET",route="/health"`). */
export const labelText = (labels: Readonly<Record<string, string>>): string =>
  Object.entries(labels)
    .map(([name, value]) => `${name}="${escapeLabel(value)}"`)
    .join(',');

/** A sample value as prom-client writes one. */
export const valueText = (n: number): string =>
  Number.isNaN(n) ? 'Nan' : n === Infinity ? '+Inf' : n === -Infinity ? '-Inf' : String(n);

interface Family {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** Labels every series carries (the node's id). */
  readonly shared?: Readonly<Record<string, string>>;
}

/** The cells of one metric family, by their label values. */
class Cells<C> {
  private readonly cells = new Map<string, C & { readonly labels: string }>();
  private readonly shared: string;

  constructor(
    protected readonly family: Family,
    private readonly fresh: () => C,
  ) {
    this.shared = labelText(family.shared ?? {});
  }

  /** The cell of `values` (in `labelNames` order), made at its first use. */
  protected cell(values: readonly string[]): C & { readonly labels: string } {
    const key = values.join('\u0000');
    let cell = this.cells.get(key);
    if (cell === undefined) {
      const own = labelText(Object.fromEntries(this.family.labelNames.map((n, i) => [n, values[i] ?? ''])));
      cell = { ...this.fresh(), labels: [own, this.shared].filter((t) => t !== '').join(',') };
      this.cells.set(key, cell);
    }
    return cell;
  }

  protected all(): Iterable<C & { readonly labels: string }> {
    return this.cells.values();
  }

  protected header(type: string): string[] {
    return [`# HELP ${this.family.name} ${this.family.help}`, `# TYPE ${this.family.name} ${type}`];
  }
}

export class CounterCells extends Cells<{ value: number }> {
  constructor(family: Family) {
    super(family, () => ({ value: 0 }));
  }

  inc(values: readonly string[], by = 1): void {
    this.cell(values).value += by;
  }

  /** The family in the text format, closed by a line feed. */
  render(): string {
    const lines = this.header('counter');
    for (const c of this.all()) lines.push(`${this.family.name}{${c.labels}} ${valueText(c.value)}`);
    return `${lines.join('\n')}\n`;
  }
}

export class HistogramCells extends Cells<{ count: number; sum: number; readonly buckets: number[] }> {
  /** @param bounds the bucket upper bounds, ascending */
  constructor(
    family: Family,
    private readonly bounds: readonly number[],
  ) {
    super(family, () => ({ count: 0, sum: 0, buckets: bounds.map(() => 0) }));
  }

  observe(values: readonly string[], value: number): void {
    const cell = this.cell(values);
    cell.count += 1;
    cell.sum += value;
    // Per bucket here (not cumulative): summed up when written.
    for (let i = 0; i < this.bounds.length; i++) {
      if (value <= (this.bounds[i] as number)) {
        cell.buckets[i] = (cell.buckets[i] as number) + 1;
        break;
      }
    }
  }

  /**
   * A counter family over the same label sets, from each cell's count (a request counter and its duration
   * histogram count the same answers), in the text format, closed by a line feed.
   */
  renderCounts(name: string, help: string): string {
    const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} counter`];
    for (const c of this.all()) lines.push(`${name}{${c.labels}} ${c.count}`);
    return `${lines.join('\n')}\n`;
  }

  /** The family in the text format, closed by a line feed. */
  render(): string {
    const { name } = this.family;
    const lines = this.header('histogram');
    for (const c of this.all()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += c.buckets[i] as number;
        lines.push(`${name}_bucket{${c.labels},le="${bound}"} ${cumulative}`);
      });
      lines.push(
        `${name}_bucket{${c.labels},le="+Inf"} ${c.count}`,
        `${name}_sum{${c.labels}} ${valueText(c.sum)}`,
        `${name}_count{${c.labels}} ${c.count}`,
      );
    }
    return `${lines.join('\n')}\n`;
  }
}
