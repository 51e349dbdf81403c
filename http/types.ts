/** The gateway's public shapes: settings it is given, routes it serves, requests and replies handlers see. */
import type { Logger } from 'pino';
import type { ApiReply } from './reply.js';

/** `api.auth` of the Tier A file, already resolved (token values are the secrets themselves). */
export interface AuthSettings {
  /** Local-development opt-out: the guard is off and every actor is `anonymous` (WARNING at start). */
  readonly disabled: boolean;
  /** When false, reads need a token too (`/ws/stream` then also accepts `?token=`). */
  readonly allowAnonymousRead: boolean;
  readonly tokens: ReadonlyArray<{ readonly id: string; readonly token: string }>;
  /** Token ids that may change the company document; absent = the document is not managed. */
  readonly companyWriters?: readonly string[];
}

/** What the node tells the gateway about itself; the node builds the probe bodies. */
export interface ProbeSource {
  /** The health envelope, ready to encode. */
  health(): unknown;
  ready(): { ready: true } | { ready: false; [k: string]: unknown };
  /** True once the node drains (the gateway's own `drain()` also sets it). */
  draining(): boolean;
  /**
   * Facts a cached health answer must never outlive (the seats this node holds, which a lease ends on the
   * node's own clock; the bus link, phase and posture `/ready` reads live, so the two probes never disagree):
   * the answer is built again whenever this changes. Cheap: asked on every probe.
   */
  fresh?(): string;
  /** False before the first revision is active: webhook deliveries answer 503. */
  configured(): boolean;
}

/**
 * Who may call a route. `open`: never guarded; `read`: guarded only when anonymous reads are off;
 * `write` and `guarded`: a token always. Always-guarded and never-guarded paths of the spec override it.
 */
export type Access = 'open' | 'read' | 'write' | 'guarded';

/** Decides the security policy and a few limits: webhook bodies, landing CSP, dashboard CSP. */
export type RouteKind = 'api' | 'webhook' | 'dashboard' | 'landing' | 'probe';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A conditional request header a write route may read (RFC 9110 13.1). */
export type Precondition = 'if-match' | 'if-none-match';

export interface RouteDef {
  readonly method: Method;
  /** `/config/revisions/:id`; a trailing `/*` takes the rest of the path as `params['*']`. */
  readonly pattern: string;
  /** Default: `open` for webhook, dashboard, landing and probe kinds; else `read` for GET, `write` otherwise. */
  readonly access?: Access;
  /** Default: `public` under `/webhooks/`, `/otlp/`, `/mcp/`, else `api`. Public routes move to `publicPort` when set. */
  readonly listener?: 'api' | 'public';
  /** Default `api`, or `webhook` under `/webhooks/`. */
  readonly kind?: RouteKind;
  /** Landing pages: hashes of their own inline style and script (see `cspHash`). */
  readonly cspHashes?: { readonly style?: readonly string[]; readonly script?: readonly string[] };
  /** Largest body accepted; default 25 MiB for webhooks, `apiBodyMaxBytes` otherwise. */
  readonly maxBodyBytes?: number;
  /** The 413 `body_too_large` hint past `maxBodyBytes`, when the route can say more than "send less". */
  readonly tooLargeHint?: string;
  /**
   * GET routes also answer HEAD (the GET's head, no body) unless this is false: a GET that hands the request
   * on (an MCP transport) or acts. Webhook and landing routes never do.
   */
  readonly head?: boolean;
  /**
   * Whether the path's parameters name something this route serves (a closed set of kinds, a last
   * segment): a path it does not serve is not served under its method — 405 with the other routes'
   * `Allow` when some serve the path, else 404 `no_route` — and its method is not in that `Allow`.
   */
  serves?(params: Readonly<Record<string, string>>): boolean;
  /** The 404's hint when `serves` refused a path no other route serves (e.g. the kinds it does serve). */
  readonly unservedHint?: string;
  /**
   * Whether this route's 401s carry the gateway's Bearer challenge (ops/http.md). Default: yes, except on
   * webhook receivers, whose senders sign by their vendor's scheme (an HMAC header), which is no HTTP
   * authentication; a receiver taking `Authorization: Bearer` (as the relay's does) should set it true.
   */
  readonly bearerChallenge?: boolean;
  /** Webhooks answer 503 on an unconfigured node unless this is true (e.g. a URL verification challenge). */
  readonly servesUnconfigured?: boolean;
  /**
   * Checks that need no body, run before it is read (throw an ApiError, or return a reply, to refuse; the
   * body then stays unread and the connection closes): e.g. a path id outside its grammar, a missing
   * keyring, a webhook without its secret or its signature header.
   */
  beforeBody?(req: RequestHead, log: Logger): ApiReply | void;
  /**
   * The query parameters the route reads, declared in one place: any other is 400 `bad_params` naming it
   * (and the one meant, for a near miss), checked before `beforeBody` and the body. Absent: not checked.
   */
  readonly query?: readonly string[];
  /**
   * The precondition headers this write route reads (honours, or refuses by its own rule): any other sent
   * to it is 400 `unsupported_precondition` naming it, after `beforeBody` and before the body
   * (http/declared-preconditions.ts). Absent: it reads none. Not checked on reads or webhook receivers.
   */
  readonly preconditions?: readonly Precondition[];
  /**
   * This route's refusals in its protocol's own error shape (OTLP/HTTP's `google.rpc.Status`): every
   * answer of 400 or more the gateway builds for it once routed (drain, body limits, a failure) or its
   * `beforeBody` or handler throws, given with the request's headers (`content-type` alone for a drain's
   * 503, decided before they are copied). Keep status and headers. Absent: the node's `{error, detail, hint}`.
   */
  refusalIn?(reply: ApiReply, headers: Readonly<Record<string, string>>): ApiReply;
  handler(req: ApiRequest): Promise<ApiReply> | ApiReply;
}

export interface Actor {
  readonly id: string;
  readonly kind: 'operator' | 'anonymous';
}

export interface ApiRequest {
  readonly method: string;
  /** Raw path as sent (percent-encoding kept); params are decoded. */
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Null on a route read without a credential; `anonymous` when the guard is disabled. */
  readonly actor: Actor | null;
  /** Bound with `route` and `operator`. */
  readonly log: Logger;
  /** The route pattern that matched. */
  readonly route: string;
}

/** What is known of a request before its body is read. */
export type RequestHead = Omit<ApiRequest, 'body' | 'log'>;

export type { ApiReply } from './reply.js';

export interface GatewayLimits {
  /** Reading a body; past it 400 `unreadable_body`. Default 30 000. */
  readonly bodyTimeoutMs: number;
  readonly webhookBodyMaxBytes: number;
  readonly apiBodyMaxBytes: number;
  /** In-flight requests are cut this long after a listener starts closing. Default 5 000. */
  readonly drainCutMs: number;
  /** Upper bound on closing one listener. Default 5 000. */
  readonly listenerCloseMs: number;
  /**
   * Request-body bytes one listener holds at once; a body that would pass it answers 503 `overloaded`
   * unread. A body is admitted alone whatever its size (the route's limit still applies). Default 64 MiB.
   */
  readonly bodyBytesInFlightMax: number;
}
