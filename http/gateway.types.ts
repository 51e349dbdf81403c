/** What the gateway is given and what it hands back; apart from the route types so the stream hub's routes can use those. */
import type { Logger } from 'pino';
import type { AuthSettings, GatewayLimits, ProbeSource, RouteDef } from './types.js';
import type { StreamHub } from './ws/stream-hub.js';

/** One answered request, as a metrics sink sees it (no path: a route pattern keeps the label set bounded). */
export interface AnsweredRequest {
  readonly method: string;
  /** The route pattern as the table spells it (`/agents/:id`), `/health` or `/ready` for probes, null when no route matched. */
  readonly route: string | null;
  readonly status: number;
  /** From the request's arrival to its answer being written. */
  readonly seconds: number;
}

/** Told of every answered request; `scripts/` wires it to the metrics registry, so `http/` needs none. */
export interface RequestObserver {
  answered(request: AnsweredRequest): void;
}

export interface GatewayOptions {
  readonly host: string;
  /** `0` binds nothing. */
  readonly port: number;
  /** `api.public.port`; when set, public routes are served only there. */
  readonly publicPort?: number;
  /** Without the ingress role only probes (and `/mcp/` routes) are served. */
  readonly ingress: boolean;
  readonly auth: AuthSettings;
  readonly probes: ProbeSource;
  readonly routes?: readonly RouteDef[];
  readonly logger?: Logger;
  readonly limits?: Partial<GatewayLimits>;
  /** The live stream: `WS /ws/stream` is served on `api.port` (ingress only) when given. */
  readonly stream?: StreamHub;
  /** Told of every answered request (`GET /metrics`). */
  readonly observer?: RequestObserver;
}

export interface Gateway {
  /** The bound `api.port`; 0 when it binds nothing. */
  readonly port: number;
  readonly publicPort: number | null;
  /** Requests being served by handlers right now, both listeners. */
  inFlight(): number;
  /** True once `drain()` or `close()` ran, or the probe source says so. */
  draining(): boolean;
  /**
   * Refuse writes and webhooks, close the public listener, then `api.port` once `settled` has (it answers
   * probes until then; the live stream's sockets are closed 1001); resolves when both are closed.
   */
  drain(settled?: Promise<unknown>): Promise<void>;
  /** Close both listeners now, cutting every connection. */
  close(): Promise<void>;
}
