/**
 * What a seat host publishes as the seat, behind its lease fence: the event records of its turns
 * (`svc.events.<type>`, de-duplicated by record id), the stream-only `agent_turn_progress`, and the
 * turn's dependencies with the fence in front of every model call, tool call and spend record.
 */
import {
  admittedCategory,
  LiveOriginHeader,
  publishEvent as busPublishEvent,
  type Bus,
  newEvent,
} from '../../bus/index.js';
import type { Fence } from '../lease/index.js';
import type { EventRecord, Payloads } from '../../schema/index.js';
import type { TurnDeps, TurnEvents } from './turn.deps.js';

/** The turn's dependencies with the fence in front of every call that acts as the seat. */
export function fencedDeps(deps: Omit<TurnDeps, 'events'>, fence: Fence): Omit<TurnDeps, 'events'> {
  const { llm, tools } = deps;
  return {
    ...deps,
    llm: {
      resolve: (seat) => llm.resolve(seat),
      call: (chain, request, caller) => {
        fence();
        return llm.call(chain, request, caller);
      },
      ...(llm.snapshot ? { snapshot: () => llm.snapshot?.() ?? {} } : {}),
    },
    tools: {
      toolsFor: (seat) => tools.toolsFor(seat),
      call: (ctx, call) => {
        fence();
        return tools.call(ctx, call);
      },
    },
    spend: (record) => {
      fence();
      return deps.spend(record);
    },
  };
}

/**
 * The node's own read models take its seats' live-view frames as they are made, typed, rather than
 * checking each again (event, then payload) when its copy comes back over the bus: a frame holds the
 * phase's every round so far. Frames so folded carry `LiveOriginHeader: node` for the subscription to skip.
 */
export interface LocalProgress {
  readonly node: string;
  fold(record: EventRecord, payload: Payloads.AgentTurnProgress): void;
}

export interface SeatEvents {
  /** A record about the seat (not yet published); throws UnmappedEventTypeError for a type with no category. */
  readonly event: (
    type: string,
    payload: Record<string, unknown>,
    failed?: boolean,
    trace?: string,
  ) => EventRecord;
  /** Publishes a record under its id, after the fence, through the bus's admission check. */
  readonly publishEvent: (record: EventRecord) => Promise<void>;
  /** The turn events of one trace. */
  readonly eventsFor: (trace: string) => TurnEvents;
}

export function seatEvents(opts: {
  readonly bus: Bus;
  /** `<node>/seat/<handle>` */
  readonly source: string;
  readonly handle: string;
  readonly fence: Fence;
  readonly now: () => Date;
  /** Carried by every record (the lease epoch the seat acts under). */
  readonly headers?: Record<string, string>;
  /** This node's read models, handed each live-view frame as it goes out (see `LocalProgress`). */
  readonly localProgress?: LocalProgress;
}): SeatEvents {
  const { handle, fence, localProgress } = opts;
  const frameHeaders = localProgress ? { [LiveOriginHeader]: localProgress.node } : undefined;
  const publishEvent = async (record: EventRecord): Promise<void> => {
    fence();
    await busPublishEvent(opts.bus, record, opts.headers ? { headers: opts.headers } : {});
  };
  const event = (
    type: string,
    payload: Record<string, unknown>,
    failed = false,
    trace?: string,
  ): EventRecord =>
    newEvent({
      type,
      // The admission map decides the category (budget_exhausted and turn.guard_breach are `decision`); a type
      // it does not name is refused here, never filed under a default.
      category: admittedCategory(type),
      source: opts.source,
      summary: `${handle}: ${type}${typeof payload['phase'] === 'string' ? ` (${payload['phase']})` : ''}`,
      actor: handle,
      agent_id: handle,
      payload,
      failed,
      ...(trace ? { trace: { trace_id: trace, parent_span_id: null } } : {}),
      now: opts.now(),
    });
  const eventsFor = (trace: string): TurnEvents => ({
    publish: async (type, payload, failed, id) => {
      const record = event(type, payload, failed ?? false, trace);
      await publishEvent(id === undefined ? record : { ...record, id });
    },
    progress: (payload) => {
      try {
        fence();
      } catch {
        return;
      }
      const record = event('agent_turn_progress', payload, false, trace);
      // Stream-only, so emitted. A frame is best-effort (the next is the whole view again) and goes out from a
      // timer: one the bus can no longer take is dropped there, not thrown.
      busPublishEvent(opts.bus, record, frameHeaders ? { headers: frameHeaders } : {}).catch(() => undefined);
      try {
        localProgress?.fold(record, payload);
      } catch {
        // As a frame lost on the bus: the next one is the whole view again.
      }
    },
  });
  return { event, publishEvent, eventsFor };
}
