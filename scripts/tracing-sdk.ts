/**
 * The OpenTelemetry SDK half of the node's tracing (tracing.ts decides whether it runs): loaded only when
 * an OTLP endpoint is set, so a node without one never pays the SDK's ~200 ms of module loading at start.
 * This is the only module that imports the SDK.
 */
import {
  context,
  createNoopMeter,
  diag,
  DiagLogLevel,
  SpanKind,
  SpanStatusCode,
  trace,
  type MeterProvider,
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
  ATTR_ERROR_TYPE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { SpanStart, Tracer, TraceSpan } from '../schema/index.js';

type Env = Readonly<Record<string, string | undefined>>;

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

/** What the SDK reports of itself between two lines the node writes: one a minute, the rest counted. */
const DIAG_EVERY_MS = 60_000;

/** A diagnostic's text: the error handler hands a whole error as JSON (stack included); its message is enough. */
function diagText(message: string, args: readonly unknown[]): string {
  let text = message;
  try {
    const parsed: unknown = JSON.parse(message);
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) text = String(parsed.message);
  } catch {
    // Plain text already.
  }
  return [text, ...args.map((a) => (a instanceof Error ? a.message : String(a)))].join(' ');
}

/**
 * The SDK reports failed exports (an unreachable collector, a refused key) to its own diagnostic logger,
 * which is silent until one is set: routed to the node's log at WARNING, at most one line a minute so a
 * collector that stays down does not flood it (an export is tried every `OTEL_BSP_SCHEDULE_DELAY`).
 */
function routeDiagnostics(log: Logger): void {
  let last = -Infinity;
  let suppressed = 0;
  const warn = (message: string, ...args: unknown[]): void => {
    const now = performance.now();
    if (now - last < DIAG_EVERY_MS) {
      suppressed += 1;
      return;
    }
    last = now;
    log.warn(
      { event: 'tracing_sdk_warning', error: diagText(message, args), suppressed },
      'OpenTelemetry SDK warning (a failed OTLP export drops its spans)',
    );
    suppressed = 0;
  };
  const quiet = (): void => undefined;
  diag.setLogger(
    { error: warn, warn, info: quiet, debug: quiet, verbose: quiet },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}

/**
 * How long the drain's last step waits for the buffered spans to reach the collector. A collector that
 * takes the connection and never answers would hold the exporter for its 10 s timeout: past the drain's
 * 5 s a step, so the stop ended as an unfinished drain (exit 1) for spans that are only dropped.
 */
const FLUSH_MS = 3_000;

/** Flushes and shuts the provider down, giving up after `FLUSH_MS`: what is unsent is dropped, at WARNING. */
async function flushBounded(provider: TracerProvider, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), FLUSH_MS);
    timer.unref();
  });
  try {
    const outcome = await Promise.race([provider.shutdown().then(() => 'done' as const), late]);
    if (outcome === 'late')
      log.warn({ waited_ms: FLUSH_MS }, 'spans not flushed at drain: the collector did not answer in time');
  } catch (error) {
    log.warn({ err: error }, 'spans not flushed at drain');
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The batch processor reports each span it drops from its full queue (2048 spans waiting behind an export)
 * only to a meter it is given, as `otel.sdk.processor.span.processed` with `error.type: queue_full`; its log
 * line comes late and is one of the diagnostics cut to one a minute. A meter of its own hears those counts.
 */
function droppedSpansMeter(onDropped: (count: number) => void): MeterProvider {
  const meter = createNoopMeter();
  const counter = meter.createCounter.bind(meter);
  meter.createCounter = (name, options) => {
    const made = counter(name, options);
    if (name !== 'otel.sdk.processor.span.processed') return made;
    return {
      add(value, attributes, ctx) {
        if (attributes?.[ATTR_ERROR_TYPE] === 'queue_full') onDropped(value);
        made.add(value, attributes, ctx);
      },
    };
  };
  return { getMeter: () => meter };
}

/** The SDK tracer exporting over OTLP with `protocol` (http/protobuf when empty). */
export function sdkTracing(opts: {
  readonly env: Env;
  readonly logger: Logger;
  readonly version: string;
  readonly nodeId: string;
  readonly protocol: string;
  /** Told of the spans dropped from the full export queue (the node's metrics count them). */
  readonly onSpansDropped?: (count: number) => void;
}): { readonly tracer: Tracer; shutdown(): Promise<void> } {
  const { env, logger: log, protocol } = opts;
  // First: the exporter reports an endpoint it cannot parse while it is made.
  routeDiagnostics(log);
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
        ...(opts.onSpansDropped ? { selfObsMeterProvider: droppedSpansMeter(opts.onSpansDropped) } : {}),
      }),
    ],
  });
  log.info({ protocol: protocol || 'http/protobuf' }, 'exporting spans over OTLP');
  return {
    tracer: sdkTracer(provider.getTracer('svc', opts.version), ids),
    shutdown: () => flushBounded(provider, log),
  };
}
