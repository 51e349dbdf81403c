/**
 * A seat's open turn spans (ops/tracing.md): one per running turn, started with its first phase (at the
 * turn's start) in the wake's trace, the parent of the turn's phase spans; ended when the turn completes
 * or this node lets it go (a cut, a deferral: the next run of the turn opens a span of its own).
 */
import { noopTracer, type Tracer, type TraceSpan } from '../../schema/index.js';
import type { Turn, TurnCompletedPayload } from './seat.types.js';

export interface TurnSpans {
  /** The turn's span, started on first use. */
  of(turn: Turn): TraceSpan;
  /** Ends the turn's span; a run that completes the turn without running a phase (resumed past its deadline) opens one. */
  completed(payload: TurnCompletedPayload, turn: Turn | null): void;
  /** The turn left this node unfinished: `why` says how. */
  leftOff(turnId: string, why: string): void;
}

export function turnSpans(tracer: Tracer | undefined, handle: string): TurnSpans {
  const t = tracer ?? noopTracer;
  const open = new Map<string, TraceSpan>();
  const take = (turnId: string): TraceSpan | undefined => {
    const span = open.get(turnId);
    open.delete(turnId);
    return span;
  };
  return {
    of(turn) {
      const known = open.get(turn.turn_id);
      if (known) return known;
      if (!t.enabled) return t.startSpan('turn');
      const started = Date.parse(turn.started_at);
      const span = t.startSpan('turn', {
        traceId: turn.wake.trace_id,
        ...(Number.isFinite(started) ? { startMs: started } : {}),
        attributes: {
          'svc.seat': handle,
          'svc.turn_id': turn.turn_id,
          'svc.wake_id': turn.wake.id,
          'svc.trigger': turn.wake.kind,
        },
      });
      open.set(turn.turn_id, span);
      return span;
    },
    completed(payload, turn) {
      if (t.enabled && turn?.turn_id === payload.turn_id) this.of(turn);
      const span = take(payload.turn_id);
      if (!span) return;
      span.setAttributes({ 'svc.tokens': payload.total_tokens, 'svc.failed': payload.failed });
      if (payload.failed) span.fail(payload.error ?? 'failed');
      span.end();
    },
    leftOff(turnId, why) {
      const span = take(turnId);
      if (!span) return;
      span.setAttributes({ 'svc.left_off': why });
      span.end();
    },
  };
}
