/**
 * Sends OTLP exports from sandboxed runs on to the collector the standard variables name
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/<signal>`, or the signal's own `OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT`;
 * `OTEL_EXPORTER_OTLP_HEADERS` as `k=v,k2=v2`, values URL-decoded; `OTEL_EXPORTER_OTLP_TIMEOUT` in ms, default
 * 10 s; each also per signal). The headers stay here: a run only
 * ever talks to this service's receiver. Without an endpoint nothing is sent and every export is taken.
 *
 * Whether an export is taken is decided at once, so the receiver can tell the run's exporter to retry
 * (OTLP/HTTP's 503 + Retry-After) instead of answering 200 for an export it would drop: one that would put
 * more than `maxInFlightBytes` on its way to a slow collector is refused (`behind`), so a run posting 16 MiB
 * exports in a loop cannot pile them up in the node's memory; so is every export while the collector is
 * unreachable (`unreachable`: its last forward failed, timed out or was answered 429/502/503/504), until
 * `retryAfterSeconds` have passed and one export, sent as a probe, is answered. What was taken and then
 * failed upstream is logged (without the headers) and lost: its 200 had already gone.
 */
import type { Logger } from 'pino';

export type Signal = 'traces' | 'metrics' | 'logs';

/** An export taken (`sent` settles once the collector answered or failed), or why it was not. */
export type Admission =
  | { readonly taken: true; readonly sent: Promise<void> }
  | { readonly taken: false; readonly why: 'behind' | 'unreachable'; readonly retryAfterSeconds: number };

export interface OtlpForwarder {
  /** Where exports go (null: nowhere), for logs and tests. */
  readonly endpoint: (signal: Signal) => string | null;
  /** Takes the export (and sends it on) or refuses it, decided synchronously. */
  forward(signal: Signal, contentType: string, body: Uint8Array): Admission;
}

/** What a refused exporter is told to wait, and how long a collector that failed is left alone. */
const RETRY_AFTER_SECONDS = 5;
/** Upstream answers that say "later": the collector is there but cannot take exports now. */
const retryable = new Set([429, 502, 503, 504]);

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
  /** The clock the unreachable window is read on (ms). */
  readonly now?: () => number;
}): OtlpForwarder {
  const { env, logger } = opts;
  const now = opts.now ?? Date.now;
  const maxInFlight = opts.maxInFlightBytes ?? 64 * 1024 * 1024;
  let inFlight = 0;
  /** Per endpoint whose last forward failed: refused until `until`, then one probe at a time. */
  const down = new Map<string, { until: number; probing: boolean }>();
  const endpoint = (signal: Signal): string | null => {
    const own = env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`];
    if (own) return own;
    const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    return base ? `${base.replace(/\/+$/, '')}/v1/${signal}` : null;
  };
  const headers = {
    ...parseOtlpHeaders(env['OTEL_EXPORTER_OTLP_HEADERS']),
  };
  /** OTLP's own variables, in ms: the signal's, the base one, else the option (default 10 s). */
  const timeoutOf = (signal: Signal): number => {
    for (const name of [`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_TIMEOUT`, 'OTEL_EXPORTER_OTLP_TIMEOUT']) {
      const ms = Number(env[name]);
      if (env[name] && Number.isFinite(ms) && ms > 0) return ms;
    }
    return opts.timeoutMs ?? 10_000;
  };
  const fail = (url: string): void => {
    down.set(url, { until: now() + RETRY_AFTER_SECONDS * 1000, probing: false });
  };
  async function send(url: string, signal: Signal, contentType: string, body: Uint8Array): Promise<void> {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          ...headers,
          ...parseOtlpHeaders(env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_HEADERS`]),
          'content-type': contentType,
        },
        body,
        signal: AbortSignal.timeout(timeoutOf(signal)),
      });
      await response.arrayBuffer();
      if (retryable.has(response.status)) fail(url);
      else down.delete(url);
      if (!response.ok) logger.warn({ signal, status: response.status }, 'OTLP forward refused upstream');
    } catch (error) {
      fail(url);
      logger.warn(
        { signal, err: error instanceof Error ? error.message : String(error) },
        'OTLP forward failed',
      );
    } finally {
      inFlight -= body.length;
    }
  }
  return {
    endpoint,
    forward(signal, contentType, body) {
      const url = endpoint(signal);
      if (url === null) return { taken: true, sent: Promise.resolve() };
      const failed = down.get(url);
      if (failed && (failed.probing || now() < failed.until))
        return { taken: false, why: 'unreachable', retryAfterSeconds: RETRY_AFTER_SECONDS };
      if (inFlight + body.length > maxInFlight) {
        logger.warn(
          { signal, bytes: body.length, in_flight: inFlight },
          'OTLP export refused: the collector is behind',
        );
        return { taken: false, why: 'behind', retryAfterSeconds: RETRY_AFTER_SECONDS };
      }
      // After the window, this export is the probe: the others wait for its answer.
      if (failed) failed.probing = true;
      inFlight += body.length;
      return { taken: true, sent: send(url, signal, contentType, body) };
    },
  };
}
