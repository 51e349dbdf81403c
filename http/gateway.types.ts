/** What the gateway is given and what it hands back; apart from the route types so the stream hub's routes can use those. */
import type { Logger } from 'pino';
import type { AuthSettings, GatewayLimits, ProbeSource, RouteDef } from './types.js';
import type { StreamHub } from './ws/stream-hub.js';

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
}

export interface Gateway {
  /** The bound `api.port`; 0 when it binds nothing. */
  readonly port: number;
  readonly publicPort: number | null;
  /** Requests being served by handlers right now, both listeners. */
  inFlight(): number;
  /** True once `drain()` or `close()` ran, or the probe source says so. */
  draining(): boolean;
  /** Refuse writes and webhooks, close the public listener, then `api.port`; resolves when both are closed. */
  drain(): Promise<void>;
  /** Close both listeners now, cutting every connection. */
  close(): Promise<void>;
}
