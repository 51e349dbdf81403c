/**
 * `GET /metrics`: the node's metrics in the Prometheus text format (ops/metrics.md). Token always required,
 * like `/fleet` (the guard lists `/metrics`): the figures name seats, models and routes. The registry lives in
 * `scripts/` and is handed in as `render`, so `http/` depends on no metrics library.
 */
import type { RouteDef } from '../../types.js';

export interface MetricsSource {
  /** The exposition text and its content type (`text/plain; version=0.0.4; charset=utf-8`). */
  render(): Promise<{ readonly contentType: string; readonly text: string }>;
}

export function metricsRoutes(source: MetricsSource): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/metrics',
      access: 'guarded',
      async handler() {
        const { contentType, text } = await source.render();
        return { status: 200, body: text, headers: { 'Content-Type': contentType } };
      },
    },
  ];
}
