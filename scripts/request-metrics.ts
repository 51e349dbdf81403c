/**
 * `svc_http_requests_total` and `svc_http_request_duration_seconds` (ops/metrics.md), kept in plain cells —
 * one per method, route and status — and written in the Prometheus text format when scraped. An answered
 * request touches one cell: a Map lookup and a bucket search. prom-client's counter and histogram validate
 * and hash a label object on every call, which was a fifth of what a `/health` answer cost the node.
 * A method outside the standard ones is counted as `other`: a client choosing methods chooses no series.
 */
import { HistogramCells } from './metric-cells.js';

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

export class RequestMetrics {
  private readonly durations: HistogramCells;

  /**
   * @param bounds the histogram's bucket upper bounds in seconds, ascending
   * @param sharedLabels labels every series carries (the node's id)
   */
  constructor(bounds: readonly number[], sharedLabels: Readonly<Record<string, string>>) {
    this.durations = new HistogramCells(
      {
        name: 'svc_http_request_duration_seconds',
        help: 'Time from a request arriving to its answer being written, by method, route pattern and status.',
        labelNames: ['method', 'route', 'status'],
        shared: sharedLabels,
      },
      bounds,
    );
  }

  observe(rawMethod: string, route: string, status: number, seconds: number): void {
    const method = standardMethods.has(rawMethod) ? rawMethod : 'other';
    this.durations.observe([method, route, String(status)], seconds);
  }

  /** Both families in the text format, each closed by a line feed. */
  render(): string {
    const counts = this.durations.renderCounts(
      'svc_http_requests_total',
      'HTTP requests answered, by method, route pattern and status.',
    );
    return `${counts}\n${this.durations.render()}`;
  }
}
