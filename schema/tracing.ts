/**
 * The service's own spans, as the folders that make them see them: a tracer that starts spans under an
 * explicit parent. The OpenTelemetry SDK behind it is wired by `scripts/tracing.ts` only when an
 * `OTEL_EXPORTER_OTLP_*` endpoint is set; otherwise every span is the shared no-op below, so a caller
 * pays one call and no allocation. Lives in `schema/` because both `http/` and `actors/` take it.
 */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

export interface TraceSpan {
  /** W3C ids (hex); empty strings for the no-op span. */
  readonly traceId: string;
  readonly spanId: string;
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed (status error) with a short, credential-free message. */
  fail(message: string): void;
  end(): void;
}

export interface SpanStart {
  readonly kind?: 'internal' | 'server' | 'client';
  /** The parent span; none: a root span. */
  readonly parent?: TraceSpan | null;
  /** A root span's trace id (32 hex), when it joins a trace that already has an id (a wake's). */
  readonly traceId?: string;
  /** When the span started (epoch ms); default now. */
  readonly startMs?: number;
  readonly attributes?: SpanAttributes;
}

export interface Tracer {
  /** False for the no-op tracer: callers skip building attributes. */
  readonly enabled: boolean;
  startSpan(name: string, start?: SpanStart): TraceSpan;
}

const noopSpan: TraceSpan = Object.freeze({
  traceId: '',
  spanId: '',
  setAttributes: () => undefined,
  fail: () => undefined,
  end: () => undefined,
});

export const noopTracer: Tracer = Object.freeze({ enabled: false, startSpan: () => noopSpan });
