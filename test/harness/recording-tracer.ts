/** A tracer that keeps what its spans were told, for tests that assert on spans without an exporter. */
import type { Tracer, TraceSpan } from '../../schema/index.js';

export interface RecordedSpan {
  readonly name: string;
  readonly attributes: Record<string, unknown>;
  failed: string | null;
  ended: boolean;
}

export function recordingTracer(): {
  tracer: Tracer;
  spans: RecordedSpan[];
  /** The attributes of the ended spans of that name, in the order they ended. */
  ended(name: string): Array<Record<string, unknown>>;
} {
  const spans: RecordedSpan[] = [];
  const endOrder: RecordedSpan[] = [];
  let next = 0;
  const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
  const tracer: Tracer = {
    enabled: true,
    startSpan(name, start): TraceSpan {
      next += 1;
      const recorded: RecordedSpan = {
        name,
        attributes: { ...start?.attributes },
        failed: null,
        ended: false,
      };
      spans.push(recorded);
      return {
        traceId: start?.traceId ?? start?.parent?.traceId ?? hex(next, 32),
        spanId: hex(next, 16),
        setAttributes(attributes) {
          Object.assign(recorded.attributes, attributes);
        },
        fail(message) {
          recorded.failed = message;
        },
        end() {
          if (recorded.ended) return;
          recorded.ended = true;
          endOrder.push(recorded);
        },
      };
    },
  };
  return {
    tracer,
    spans,
    ended: (name) => endOrder.filter((s) => s.name === name).map((s) => s.attributes),
  };
}
