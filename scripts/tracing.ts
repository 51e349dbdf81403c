/**
 * The service's own spans, configured from the standard OpenTelemetry variables (ops/tracing.md): on only
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, the SDK then loaded
 * (tracing-sdk.ts; the exporter reads the endpoint, headers, timeout and TLS variables itself). Off, the
 * process gets the no-op tracer and never loads the SDK.
 */
import type { Logger } from 'pino';
import type { RequestObserver } from '../http/index.js';
import { noopTracer, type Tracer } from '../schema/index.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface ServiceTracing {
  readonly tracer: Tracer;
  /** Exports what is buffered and stops the exporter (the drain's last step). */
  shutdown(): Promise<void>;
}

const set = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';

/**
 * The first of `names` set to something other than blanks, trimmed: the SDK reads an empty variable as
 * unset (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=` falls back to the base URL), so this gate must too.
 */
const firstSet = (env: Env, ...names: string[]): string | undefined =>
  names
    .map((n) => env[n])
    .find(set)
    ?.trim();

/** A boolean variable as the SDK reads one: `true` in any case, blanks around it ignored. */
const isTrue = (v: string | undefined): boolean => v?.trim().toLowerCase() === 'true';

/** `OTEL_TRACES_EXPORTER` naming `none` (a list is allowed; `none` in it switches export off). */
const exporterNone = (v: string | undefined): boolean =>
  (v ?? '').split(',').some((e) => e.trim().toLowerCase() === 'none');

/** The tracing of this process: the SDK when an OTLP endpoint is set, else the no-op tracer. */
export async function startTracing(opts: {
  readonly env: Env;
  readonly logger: Logger;
  readonly version: string;
  readonly nodeId: string;
  /** Told of the spans the SDK drops from its full export queue. */
  readonly onSpansDropped?: (count: number) => void;
}): Promise<ServiceTracing> {
  const { env, logger: log } = opts;
  const off: ServiceTracing = { tracer: noopTracer, shutdown: () => Promise.resolve() };
  const endpoint = firstSet(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (endpoint === undefined || isTrue(env['OTEL_SDK_DISABLED']) || exporterNone(env['OTEL_TRACES_EXPORTER']))
    return off;
  const protocol =
    firstSet(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL')?.toLowerCase() ?? '';
  if (protocol !== '' && protocol !== 'http/protobuf' && protocol !== 'http/json') {
    log.warn({ protocol }, 'OTLP protocol not supported (http/protobuf or http/json); no spans are exported');
    return off;
  }
  const { sdkTracing } = await import('./tracing-sdk.js');
  return sdkTracing({ ...opts, protocol });
}

// The stable HTTP semantic-convention names, spelled here so the off path loads no OpenTelemetry package.
const httpRequestMethod = 'http.request.method';
const httpResponseStatusCode = 'http.response.status_code';
const httpRoute = 'http.route';

/**
 * The gateway's request spans, from its answered-request hook: one server span per answer, named by the
 * route template (never the path, which may carry a token), started when the request arrived.
 */
export function requestSpans(tracer: Tracer, next: RequestObserver): RequestObserver {
  if (!tracer.enabled) return next;
  return {
    answered(request) {
      next.answered(request);
      const span = tracer.startSpan(request.route ? `${request.method} ${request.route}` : request.method, {
        kind: 'server',
        startMs: Date.now() - request.seconds * 1000,
        attributes: {
          [httpRequestMethod]: request.method,
          [httpResponseStatusCode]: request.status,
          ...(request.route ? { [httpRoute]: request.route } : {}),
        },
      });
      if (request.status >= 500) span.fail(`HTTP ${request.status}`);
      span.end();
    },
  };
}
