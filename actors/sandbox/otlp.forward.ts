/**
 * Sends OTLP exports from sandboxed runs on to the collector the standard variables name
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/<signal>`, or the signal's own `OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT`;
 * `OTEL_EXPORTER_OTLP_HEADERS` as `k=v,k2=v2`, values URL-decoded). The headers stay here: a run only
 * ever talks to this service's receiver. Without an endpoint nothing is sent. A failed forward is logged
 * (without the headers) and dropped: the run's own export already succeeded. While the collector is slow,
 * at most `maxInFlightBytes` of exports wait on it; one past that is dropped and logged, so a run posting
 * 16 MiB exports in a loop cannot pile them up in the node's memory.
 */
import type { Logger } from 'pino';

export type Signal = 'traces' | 'metrics' | 'logs';

export interface OtlpForwarder {
  /** Where exports go (null: nowhere), for logs and tests. */
  readonly endpoint: (signal: Signal) => string | null;
  forward(signal: Signal, contentType: string, body: Uint8Array): Promise<void>;
}

export function parseOtlpHeaders(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    try {
      out[name] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      out[name] = pair.slice(at + 1).trim();
    }
  }
  return out;
}

export function otlpForwarder(opts: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly timeoutMs?: number;
  /** Bytes of exports on their way upstream at once (default 64 MiB). */
  readonly maxInFlightBytes?: number;
}): OtlpForwarder {
  const { env, logger } = opts;
  const maxInFlight = opts.maxInFlightBytes ?? 64 * 1024 * 1024;
  let inFlight = 0;
  const endpoint = (signal: Signal): string | null => {
    const own = env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`];
    if (own) return own;
    const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    return base ? `${base.replace(/\/+$/, '')}/v1/${signal}` : null;
  };
  const headers = {
    ...parseOtlpHeaders(env['OTEL_EXPORTER_OTLP_HEADERS']),
  };
  return {
    endpoint,
    async forward(signal, contentType, body) {
      const url = endpoint(signal);
      if (url === null) return;
      if (inFlight + body.length > maxInFlight) {
        logger.warn(
          { signal, bytes: body.length, in_flight: inFlight },
          'OTLP forward dropped: the collector is behind',
        );
        return;
      }
      inFlight += body.length;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            ...headers,
            ...parseOtlpHeaders(env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_HEADERS`]),
            'content-type': contentType,
          },
          body,
          signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
        });
        await response.arrayBuffer();
        if (!response.ok) logger.warn({ signal, status: response.status }, 'OTLP forward refused upstream');
      } catch (error) {
        logger.warn(
          { signal, err: error instanceof Error ? error.message : String(error) },
          'OTLP forward failed',
        );
      } finally {
        inFlight -= body.length;
      }
    },
  };
}
