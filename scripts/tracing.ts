/**
 * The service's own spans through the OpenTelemetry SDK, configured from the standard variables
 * (ops/tracing.md): on only when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is
 * set; the exporter reads the endpoint, headers, timeout and TLS variables itself. Off, the process gets
 * the no-op tracer and nothing of the SDK runs. This is the only module that imports the SDK.
 */
import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span as OtelSpan,
  type Tracer as OtelTracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  RandomIdGenerator,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type IdGenerator,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { RequestObserver } from '../http/index.js';
import { noopTracer, type SpanStart, type Tracer, type TraceSpan } from '../schema/index.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface ServiceTracing {
  readonly tracer: Tracer;
  /** Exports what is buffered and stops the exporter (the drain's last step). */
  shutdown(): Promise<void>;
}

const set = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';

/** `OTEL_TRACES_SAMPLER` (+ `_ARG`); the SDK's default is parent-based always-on. */
function samplerOf(env: Env, log: Logger): Sampler {
  const name = (env['OTEL_TRACES_SAMPLER'] ?? 'parentbased_always_on').trim().toLowerCase();
  const arg = Number(env['OTEL_TRACES_SAMPLER_ARG'] ?? '1');
  const ratio = new TraceIdRatioBasedSampler(Number.isFinite(arg) ? Math.min(1, Math.max(0, arg)) : 1);
  const table: Record<string, () => Sampler> = {
    always_on: () => new AlwaysOnSampler(),
    always_off: () => new AlwaysOffSampler(),
    traceidratio: () => ratio,
    parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
    parentbased_traceidratio: () => new ParentBasedSampler({ root: ratio }),
  };
  const make = table[name];
  if (make) return make();
  log.warn({ sampler: name }, 'OTEL_TRACES_SAMPLER not supported; sampling every trace');
  return new AlwaysOnSampler();
}

/** Random ids, but a root span may be given its trace id (a wake's): set just before the synchronous start. */
class ChosenTraceIds implements IdGenerator {
  next: string | null = null;
  private readonly random = new RandomIdGenerator();
  generateTraceId(): string {
    const id = this.next ?? this.random.generateTraceId();
    this.next = null;
    return id;
  }
  generateSpanId(): string {
    return this.random.generateSpanId();
  }
}

const kinds = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT } as const;
const traceIdShape = /^(?!0{32})[0-9a-f]{32}$/;

class SdkSpan implements TraceSpan {
  constructor(readonly span: OtelSpan) {}
  get traceId(): string {
    return this.span.spanContext().traceId;
  }
  get spanId(): string {
    return this.span.spanContext().spanId;
  }
  setAttributes(attributes: Record<string, string | number | boolean>): void {
    this.span.setAttributes(attributes);
  }
  fail(message: string): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }
  end(): void {
    this.span.end();
  }
}

function sdkTracer(otel: OtelTracer, ids: ChosenTraceIds): Tracer {
  return {
    enabled: true,
    startSpan(name: string, start: SpanStart = {}): TraceSpan {
      const parent = start.parent instanceof SdkSpan ? start.parent.span : null;
      const ctx = parent ? trace.setSpan(context.active(), parent) : trace.deleteSpan(context.active());
      if (!parent && start.traceId !== undefined && traceIdShape.test(start.traceId))
        ids.next = start.traceId;
      const span = otel.startSpan(
        name,
        {
          kind: kinds[start.kind ?? 'internal'],
          ...(start.attributes ? { attributes: start.attributes } : {}),
          ...(start.startMs !== undefined ? { startTime: start.startMs } : {}),
        },
        ctx,
      );
      ids.next = null;
      return new SdkSpan(span);
    },
  };
}

/** The tracing of this process: the SDK when an OTLP endpoint is set, else the no-op tracer. */
export function startTracing(opts: {
  readonly env: Env;
  readonly logger: Logger;
  readonly version: string;
  readonly nodeId: string;
}): ServiceTracing {
  const { env, logger: log } = opts;
  const off: ServiceTracing = { tracer: noopTracer, shutdown: () => Promise.resolve() };
  const endpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] ?? env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  if (!set(endpoint) || env['OTEL_SDK_DISABLED']?.trim() === 'true' || env['OTEL_TRACES_EXPORTER'] === 'none')
    return off;
  const protocol = (
    env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] ??
    env['OTEL_EXPORTER_OTLP_PROTOCOL'] ??
    ''
  ).trim();
  if (protocol !== '' && protocol !== 'http/protobuf' && protocol !== 'http/json') {
    log.warn({ protocol }, 'OTLP protocol not supported (http/protobuf or http/json); no spans are exported');
    return off;
  }
  const exporter = protocol === 'http/json' ? new JsonExporter() : new ProtoExporter();
  const delay = Number(env['OTEL_BSP_SCHEDULE_DELAY']);
  const ids = new ChosenTraceIds();
  const named = set(env['OTEL_SERVICE_NAME']) ? {} : { [ATTR_SERVICE_NAME]: 'svc' };
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({
        ...named,
        [ATTR_SERVICE_VERSION]: opts.version,
        'service.instance.id': opts.nodeId,
      }),
    )
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(env, log),
    idGenerator: ids,
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        ...(Number.isFinite(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {}),
      }),
    ],
  });
  log.info({ protocol: protocol || 'http/protobuf' }, 'exporting spans over OTLP');
  return {
    tracer: sdkTracer(provider.getTracer('svc', opts.version), ids),
    shutdown: () =>
      provider.shutdown().catch((error: unknown) => log.warn({ err: error }, 'spans not flushed at drain')),
  };
}

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
          [ATTR_HTTP_REQUEST_METHOD]: request.method,
          [ATTR_HTTP_RESPONSE_STATUS_CODE]: request.status,
          ...(request.route ? { [ATTR_HTTP_ROUTE]: request.route } : {}),
        },
      });
      if (request.status >= 500) span.fail(`HTTP ${request.status}`);
      span.end();
    },
  };
}
