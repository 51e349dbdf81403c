/**
 * The edge gateway: binds `api.port` (and `api.public.port` when set), routes through the guard and limits,
 * and drains in the spec's order (public listener first, then `api.port`, each cut after 5 s).
 */
import uws from '@trufflesuite/uws-js-unofficial';
import type { TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';
import { pino } from 'pino';
import { BodyBudget } from './body-budget.js';
import { onRequest } from './dispatch.js';
import type { GatewayCore, ListenerState } from './dispatch.core.js';
import { Guard } from './guard.js';
import { compileRoute, RouteTable } from './router.js';
import type { CompiledRoute } from './router.js';
import type { Gateway, GatewayOptions } from './gateway.types.js';
import type { GatewayLimits } from './types.js';
import { mountStream } from './ws/stream-socket.js';
import type { StreamHub } from './ws/stream-hub.js';

export const defaultLimits: GatewayLimits = Object.freeze({
  bodyTimeoutMs: 30_000,
  webhookBodyMaxBytes: 25 * 1024 * 1024,
  apiBodyMaxBytes: 8 * 1024 * 1024,
  drainCutMs: 5_000,
  listenerCloseMs: 5_000,
  bodyBytesInFlightMax: 64 * 1024 * 1024,
});

/** The listener could not bind (port taken, bad host). */
export class GatewayListenError extends Error {
  override name = 'GatewayListenError';
  constructor(
    readonly host: string,
    readonly port: number,
    options?: { cause?: unknown },
  ) {
    super(`cannot listen on ${host}:${port}`, options);
  }
}

/** `App.close()` exists in this build but not in its typings: it closes every socket of the app. */
type ClosableApp = TemplatedApp & { close(): void };

interface Bound extends ListenerState {
  readonly app: ClosableApp;
  readonly socket: us_listen_socket;
  readonly port: number;
  closed: Promise<void> | null;
  /** While closing: cuts what is still in flight now instead of at the deadline. */
  cutNow: (() => void) | null;
}

/** `LIBUS_LISTEN_EXCLUSIVE_PORT` is exported by the binary but missing from the typings. */
const exclusivePort = (uws as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT;

function listen(app: ClosableApp, host: string, port: number): Promise<us_listen_socket> {
  return new Promise((resolve, reject) => {
    // Exclusive: without it uSockets sets SO_REUSEPORT and a second node would share the port silently.
    (
      app as unknown as {
        listen(h: string, p: number, o: number, cb: (s: us_listen_socket | false) => void): void;
      }
    ).listen(host, port, exclusivePort, (socket) =>
      socket === false ? reject(new GatewayListenError(host, port)) : resolve(socket),
    );
  });
}

async function bind(
  core: GatewayCore,
  host: string,
  port: number,
  state: Omit<ListenerState, 'live' | 'onIdle' | 'budget'>,
  stream: StreamHub | null,
): Promise<Bound> {
  const app = uws.App() as ClosableApp;
  // Upgrades only: a GET without `Upgrade` falls through to the route table (426 or 401).
  if (stream !== null) mountStream(app, stream, core.guard, core.log, core.observer);
  const budget = new BodyBudget(core.limits.bodyBytesInFlightMax);
  const listener = { ...state, live: new Set(), onIdle: null, budget } as Omit<
    Bound,
    'app' | 'socket' | 'port' | 'closed' | 'cutNow'
  >;
  app.any('/*', (res, req) => onRequest(core, listener, res, req));
  const socket = await listen(app, host, port);
  const bound = uws.us_socket_local_port(socket);
  return Object.assign(listener, { app, socket, port: bound, closed: null, cutNow: null });
}

/** How long closed stream sockets get to answer their close frame before the listener cuts them. */
const streamCloseMs = 1_000;

/** Resolves once `hub` has no client left, or after `ms`. */
async function streamGone(hub: StreamHub, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (hub.count() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * Stop accepting, wait for in-flight requests up to the cut, then close every connection. The live stream's
 * sockets are closed first with 1001 and get a moment to go: `app.close()` drops a socket without a frame.
 */
function closeListener(
  l: Bound,
  cutMs: number,
  log: GatewayCore['log'],
  stream: StreamHub | null = null,
): Promise<void> {
  if (l.closed !== null) {
    if (cutMs === 0) l.cutNow?.();
    return l.closed;
  }
  l.closed = new Promise<void>((resolve) => {
    uws.us_listen_socket_close(l.socket);
    log.info({ event: 'listener_closing', listener: l.name, in_flight: l.live.size }, 'listener closing');
    const finish = (): void => {
      if (l.cutNow === null) return;
      l.cutNow = null;
      clearTimeout(timer);
      l.onIdle = null;
      const cut = l.live.size;
      for (const exchange of [...l.live]) exchange.cut();
      stream?.close();
      void (stream ? streamGone(stream, streamCloseMs) : Promise.resolve()).then(() => {
        l.app.close();
        log.info({ event: 'listener_closed', listener: l.name, cut }, 'listener closed');
        resolve();
      });
    };
    l.cutNow = finish;
    const timer = setTimeout(finish, cutMs);
    if (l.live.size === 0) finish();
    else l.onIdle = finish;
  });
  return l.closed;
}

/**
 * Starts the gateway. `port: 0` binds nothing; `publicPort` moves the public routes to a second listener.
 * @example const gw = await startGateway({ host: '127.0.0.1', port: 8080, ingress: true, auth, probes, routes });
 */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const log = opts.logger ?? pino({ level: 'silent' });
  const limits: GatewayLimits = { ...defaultLimits, ...opts.limits };
  let draining = false;
  const core: GatewayCore = {
    guard: new Guard(opts.auth, log),
    probes: opts.probes,
    limits,
    log,
    isDraining: () => draining || opts.probes.draining(),
    observer: opts.observer ?? null,
  };

  const compiled = (opts.routes ?? []).map(compileRoute);
  // Without the ingress role only the tool bridge may be served beside the probes.
  const served = opts.ingress ? compiled : compiled.filter((r) => r.pattern.startsWith('/mcp/'));
  // A node without ingress binds the public listener only for the tool bridge it serves there (spec).
  const hasPublic =
    opts.publicPort !== undefined &&
    opts.publicPort > 0 &&
    (opts.ingress || served.some((r) => r.listener === 'public'));
  const on = (name: 'api' | 'public'): CompiledRoute[] =>
    hasPublic ? served.filter((r) => r.listener === name) : name === 'api' ? served : [];
  const publicTable = new RouteTable(on('public'));
  // The table as served, at debug: what an operator (or a test of the gateway's conventions) walks.
  log.debug(
    { event: 'gateway_routes', routes: served.map((r) => `${r.method} ${r.pattern}`) },
    'gateway routes',
  );

  // The live stream is served on api.port of an ingress node only.
  const stream = opts.ingress ? (opts.stream ?? null) : null;
  const bound: Bound[] = [];
  try {
    if (hasPublic) {
      const state = {
        name: 'public',
        table: publicTable,
        movedToPublic: null,
        publicPrefixesMoved: false,
        serveProbes: false,
      } as const;
      bound.push(await bind(core, opts.host, opts.publicPort, state, null));
    }
    if (opts.port > 0) {
      const movedToPublic = hasPublic ? publicTable : null;
      const state = {
        name: 'api',
        table: new RouteTable(on('api')),
        movedToPublic,
        // Without ingress only the bridge moved: a webhook path is served on neither listener.
        publicPrefixesMoved: hasPublic && opts.ingress,
        serveProbes: true,
      } as const;
      bound.push(await bind(core, opts.host, opts.port, state, stream));
    }
  } catch (err) {
    for (const l of bound) l.app.close();
    throw err;
  }
  const api = bound.find((l) => l.name === 'api') ?? null;
  const pub = bound.find((l) => l.name === 'public') ?? null;
  log.info(
    {
      event: 'gateway_listening',
      host: opts.host,
      port: api?.port ?? 0,
      public_port: pub?.port ?? null,
      ingress: opts.ingress,
    },
    'gateway listening',
  );

  let drained: Promise<void> | null = null;
  const cutMs = Math.min(limits.drainCutMs, limits.listenerCloseMs);
  return {
    port: api?.port ?? 0,
    publicPort: pub?.port ?? null,
    inFlight: () => bound.reduce((n, l) => n + l.live.size, 0),
    draining: () => core.isDraining(),
    drain(settled = Promise.resolve()) {
      draining = true;
      drained ??= (async () => {
        log.info({ event: 'gateway_draining' }, 'gateway draining');
        // Public listener first, then api.port (probes keep answering until it closes): api.port stays
        // while what the node still finishes settles, so a balancer reads /ready 503 and a running turn's
        // callers (a coding run's tool bridge) are still served.
        if (pub) await closeListener(pub, cutMs, log);
        await settled.catch(() => undefined);
        if (api) await closeListener(api, cutMs, log, stream);
      })();
      return drained;
    },
    async close() {
      draining = true;
      await Promise.all(bound.map((l) => closeListener(l, 0, log, l === api ? stream : null)));
    },
  };
}
