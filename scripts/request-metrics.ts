/**
 * `svc_http_requests_total` and `svc_http_request_duration_seconds` (ops/metrics.md), kept in plain cells —
 * one per method, route and status — and written in the Prometheus text format when scraped. An answered
 * request touches one cell: a Map lookup and a bucket search. prom-client's counter and histogram validate
 * and hash a label object on every call, which was a fifth of what a `/health` answer cost the node.
 * A method outside the standard ones is counted as `other`: a client choosing methods chooses no series.
 */
import { labelText, valueText } from './metric-cells.js';

const standardMethods = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'CONNECT',
  'TRACE',
]);

interface Cell {
  /** The series' labels, written out (`method="GET",route="/health",status="200",node="a"`). */
  readonly labels: string;
  count: number;
  sum: number;
  /** Per bucket (not cumulative): answers at most that bound and above the one before. */
  readonly buckets: number[];
}

export class RequestMetrics {
  private readonly cells = new Map<string, Cell>();
  private readonly shared: string;

  /**
   * @param bounds the histogram's bucket upper bounds in seconds, ascending
   * @param sharedLabels labels every series carries (the node's id)
   */
  constructor(
    private readonly bounds: readonly number[],
    sharedLabels: Readonly<Record<string, string>>,
  ) {
    this.shared = labelText(sharedLabels);
  }

  observe(rawMethod: string, route: string, status: number, seconds: number): void {
    const method = standardMethods.has(rawMethod) ? rawMethod : 'other';
    const key = `${method} ${status} ${route}`;
    let cell = this.cells.get(key);
    if (cell === undefined) {
      const own = labelText({ method, route, status: String(status) });
      cell = {
        labels: this.shared ? `${own},${this.shared}` : own,
        count: 0,
        sum: 0,
        buckets: this.bounds.map(() => 0),
      };
      this.cells.set(key, cell);
    }
    cell.count += 1;
    cell.sum += seconds;
    for (let i = 0; i < this.bounds.length; i++) {
      if (seconds <= (this.bounds[i] as number)) {
        cell.buckets[i] = (cell.buckets[i] as number) + 1;
        break;
      }
    }
  }

  /** Both families in the text format, each closed by a line feed. */
  render(): string {
    const counter = [
      '# HELP svc_http_requests_total HTTP requests answered, by method, route pattern and status.',
      '# TYPE svc_http_requests_total counter',
    ];
    const histogram = [
      '# HELP svc_http_request_duration_seconds Time from a request arriving to its answer being written, by method, route pattern and status.',
      '# TYPE svc_http_request_duration_seconds histogram',
    ];
    for (const cell of this.cells.values()) {
      counter.push(`svc_http_requests_total{${cell.labels}} ${cell.count}`);
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += cell.buckets[i] as number;
        histogram.push(
          `svc_http_request_duration_seconds_bucket{${cell.labels},le="${bound}"} ${cumulative}`,
        );
      });
      histogram.push(
        `svc_http_request_duration_seconds_bucket{${cell.labels},le="+Inf"} ${cell.count}`,
        `svc_http_request_duration_seconds_sum{${cell.labels}} ${valueText(cell.sum)}`,
        `svc_http_request_duration_seconds_count{${cell.labels}} ${cell.count}`,
      );
    }
    return `${counter.join('\n')}\n\n${histogram.join('\n')}\n`;
  }
}
