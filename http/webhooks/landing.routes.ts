/**
 * Browser-facing routes: the chat install landing page, the per-seat codehost-a app flow's return
 * page, and the guarded begin route that hands out the app manifest with a signed `state`.
 *
 * `GET /webhooks/codehost-a-app`: `?error=` renders the vendor's description (400); otherwise 503
 * when this node has no setup surface (no keyring, no code-host API configured); `?installed=` confirms
 * and writes nothing (200; 400 when it names no agent seat of the active document); `?code=&state=`
 * converts the manifest, seals the private key and webhook secret, then records the app on the seat
 * (200), or 400 on a bad state, a spent one (the seat's app is no longer the one it was issued against: a
 * replay after its return recorded an app) or a refused code. A parameter either page reads given more than once is
 * its 400 page: the first is not assumed to be the one meant. Whatever a page shows of a query parameter
 * is escaped, and cut to 80 characters except the chat code (shown whole up to 512, to be pasted); a
 * handle (`state`, `installed`) is shown only when the seat grammar allows it.
 *
 * `POST /setup/codehost-a-app/{handle}` answers the `create_app` step (`action_url` empty, the manifest and
 * where to post it in `post_url`); it reads no query parameter, any is 400 `bad_params`; 503 `no_keyring` on a node without a keyring; without a setup surface, or without the public address the manifest's
 * hook and return addresses are built on, 503 `setup_unavailable`.
 */
import { ApiError } from '../api-error.js';
import { assertCompanyWriter } from '../guard.js';
import { queryValue } from '../routes/single.param.js';
import type { Actor, ApiReply, ApiRequest, AuthSettings, RouteDef } from '../types.js';
import { stateSigner, type StateSigner } from './app-state.js';
import { escapeHtml, landingHashes, page } from './landing-page.js';
import { isSeatHandle, quoted } from './path-grammar.js';
import type { AppInstallation } from './receiver.js';
import type { WebhookSettings } from './settings.js';

export type AppCompletion =
  | {
      readonly ok: true;
      readonly app_id: string;
      readonly app_slug: string;
      readonly revision_id: string;
      /** The code host's page that installs the new app (the roster's `install_app` link). */
      readonly install_url: string;
    }
  | { readonly ok: false; readonly status: 400 | 503; readonly reason: string };

/** What the code-host app flow needs; absent = no setup surface on this node. */
export interface AppFlow {
  /** 32 bytes every node of the fleet derives alike (from the keyring). */
  readonly stateSeed: Uint8Array;
  /** The code host's page a browser posts a manifest to (`.../settings/apps/new`). */
  readonly manifestPostUrl: string;
  /** The app id the seat's codehost-a block holds now (`''`: none), which a state is issued against. */
  appOf(handle: string): string;
  /**
   * Converts `code`, seals the key and secret first, then records the app on the seat, as written by `by`
   * (who began the flow; null: a state that does not say, recorded as the flow itself). Refused (400, the
   * code never sent) unless the seat still holds `against`, the app its state was issued against: the
   * return that records an app spends the state.
   */
  complete(handle: string, code: string, by: Actor | null, against: string): Promise<AppCompletion>;
  /** Records (or clears) the installation id a verified installation delivery names. */
  installation(handle: string, change: AppInstallation): Promise<void>;
}

export interface LandingDeps {
  configured(): boolean;
  settings(): WebhookSettings;
  readonly appFlow?: AppFlow;
  /** False when this node has no keyring: the begin route then answers 503 `no_keyring`. */
  readonly keyring?: boolean;
  readonly auth?: AuthSettings;
  publicBaseUrl?(): string | null;
}

const CHAT_CODE_TTL_MINUTES = 10;

type Landing =
  | { readonly ok: true; readonly query: Readonly<Record<string, string | null>> }
  | { readonly ok: false; readonly reply: ApiReply };

/**
 * The one value of each of `names`, or the page's 400 when one is given more than once: `get` would
 * keep the first and drop the rest, and either could be the one the vendor meant.
 */
function landingQuery(req: ApiRequest, names: readonly string[], title: string): Landing {
  const query: Record<string, string | null> = {};
  for (const name of names) {
    const value = queryValue(req.query, name);
    if (typeof value === 'object' && value !== null) {
      const line = `<b>${escapeHtml(name)}</b> is given ${value.repeated} times; this page takes one.`;
      return { ok: false, reply: page(400, title, [line]) };
    }
    query[name] = value;
  }
  return { ok: true, query };
}

function chatOauth(req: ApiRequest): ApiReply {
  const landing = landingQuery(req, ['error', 'code', 'state'], 'Chat app install');
  if (!landing.ok) return landing.reply;
  const { query } = landing;
  const error = query['error'] ?? null;
  if (error !== null)
    return page(400, 'Chat app not installed', [
      `<span class="err">The chat workspace answered: ${escapeHtml(quoted(error))}</span>`,
    ]);
  const code = query['code'] ?? null;
  const state = query['state'] ?? '';
  if (code === null || code === '' || code.length > 512)
    return page(400, 'Chat app install', ['This page expects a <b>code</b> from the chat install flow.']);
  const handle = isSeatHandle(state) ? state : null;
  return page(200, 'Chat app installed', [
    handle !== null ? `Seat: <b>${escapeHtml(handle)}</b>` : 'No seat handle came back in <b>state</b>.',
    `Temporary code:<code>${escapeHtml(code)}</code>`,
    `Paste it into the seat's chat setup within ${CHAT_CODE_TTL_MINUTES} minutes; it expires after that.`,
  ]);
}

async function codehostApp(
  deps: LandingDeps,
  signer: StateSigner | null,
  returning: Set<string>,
  req: ApiRequest,
): Promise<ApiReply> {
  const names = ['error', 'error_description', 'installed', 'code', 'state'];
  const landing = landingQuery(req, names, 'Bad request');
  if (!landing.ok) return landing.reply;
  const { query } = landing;
  const error = query['error'] ?? null;
  if (error !== null) {
    const description = query['error_description'] ?? error;
    return page(400, 'The app was not created', [
      `<span class="err">${escapeHtml(quoted(description))}</span>`,
    ]);
  }
  // Before the install confirmation too: a node with no setup surface confirms nothing (spec: 503).
  if (deps.appFlow === undefined || signer === null || !deps.configured())
    return page(503, 'Setup unavailable', ['This node has no setup surface for code-host apps.']);
  const installed = query['installed'] ?? null;
  if (installed !== null) {
    const seat = isSeatHandle(installed) ? deps.settings().directory.seats.get(installed) : undefined;
    if (seat?.kind !== 'agent')
      return page(400, 'Unknown seat', [
        'The install confirmation names no agent seat of the active configuration.',
      ]);
    return page(200, 'App installed', [
      `The app of seat <b>${escapeHtml(installed)}</b> is installed. Nothing else is needed here.`,
    ]);
  }
  const code = query['code'] ?? null;
  const state = query['state'] ?? null;
  if (code === null || state === null || !/^[A-Za-z0-9_-]{1,256}$/.test(code))
    return page(400, 'Bad request', [
      'This page expects a <b>code</b> and a <b>state</b> from the code host.',
    ]);
  const checked = signer.check(state);
  if (checked === null)
    return page(400, 'Link expired or altered', ["Start again from the seat's setup page."]);
  const { handle } = checked;
  const seat = deps.settings().directory.seats.get(handle);
  if (!seat || seat.kind !== 'agent')
    return page(400, 'Unknown seat', [
      `No agent seat <b>${escapeHtml(handle)}</b> in the active configuration.`,
    ]);
  // One return per seat at a time on this node: two at once would both seal under the seat's names
  // before either is recorded, leaving the store holding the key of the app the document does not name.
  if (returning.has(handle))
    return page(400, 'The app could not be recorded', [
      `Another return for seat <b>${escapeHtml(handle)}</b> is being recorded; start again from the seat's setup page if it fails.`,
    ]);
  returning.add(handle);
  let done: AppCompletion;
  try {
    done = await deps.appFlow.complete(handle, code, checked.by, checked.app);
  } finally {
    returning.delete(handle);
  }
  if (!done.ok) {
    req.log.warn(
      { event: 'codehost_app_refused', seat: handle, reason: done.reason },
      'codehost_app_refused',
    );
    return page(done.status, 'The app could not be recorded', [escapeHtml(done.reason)]);
  }
  req.log.info(
    { event: 'codehost_app_recorded', seat: handle, app_slug: done.app_slug },
    'codehost_app_recorded',
  );
  return page(200, 'App created', [
    `Seat <b>${escapeHtml(handle)}</b> now has the app <b>${escapeHtml(done.app_slug)}</b>.`,
    done.install_url === ''
      ? 'Install it on the repositories the seat works on; the code host brings you back here.'
      : `<a href="${escapeHtml(done.install_url)}">Install it</a> on the repositories the seat works on; the code host brings you back here.`,
  ]);
}

function begin(deps: LandingDeps, signer: StateSigner | null, req: ApiRequest): ApiReply {
  if (deps.auth) assertCompanyWriter(deps.auth, req.actor);
  // The flow seals the app's key and secret (spec: a sealing route without a keyring is `no_keyring`).
  if (deps.keyring === false)
    throw new ApiError('no_keyring', {
      detail:
        "The app's private key and webhook secret are sealed into the secret store, which needs secrets.keys.",
    });
  if (deps.appFlow === undefined || signer === null) throw new ApiError('setup_unavailable');
  const handle = req.params['handle'] ?? '';
  const seat = deps.settings().directory.seats.get(handle);
  if (!seat || seat.kind !== 'agent')
    throw new ApiError('not_found', {
      detail: `No agent seat ${quoted(handle)} in the active configuration.`,
      hint: 'A code-host app belongs to one agent seat: use its handle (GET /agents lists them).',
    });
  const base = (deps.publicBaseUrl?.() ?? '').replace(/\/+$/, '');
  // The code host calls the hook and return addresses itself: a manifest of relative paths reaches nobody.
  if (base === '')
    throw new ApiError('setup_unavailable', {
      detail: 'The public address is unset, so the app would have no webhook or return address.',
      hint: 'Set SVC_PUBLIC_BASE_URL (the address the code host reaches this service at), then begin again.',
    });
  // Who begins the flow is who its unauthenticated return records as the writer (ops/setup.md).
  // Issued against the seat's app now: the return that records an app spends it (a replay is refused).
  const state = signer.issue(handle, req.actor, deps.appFlow.appOf(handle));
  return {
    status: 200,
    body: {
      seat: handle,
      // The roster's step: its `action_url` is empty (spec), the manifest is posted to `post_url`.
      step: 'create_app',
      action_url: '',
      post_url: `${deps.appFlow.manifestPostUrl}?state=${encodeURIComponent(state)}`,
      state,
      manifest: {
        name: `${handle}`,
        url: base,
        hook_attributes: { url: `${base}/webhooks/codehost-a/${handle}`, active: true },
        redirect_url: `${base}/webhooks/codehost-a-app`,
        setup_url: `${base}/webhooks/codehost-a-app?installed=${handle}`,
        public: false,
        default_permissions: { issues: 'write', pull_requests: 'write', contents: 'write', metadata: 'read' },
        default_events: [
          'issues',
          'issue_comment',
          'pull_request',
          'pull_request_review',
          'pull_request_review_comment',
        ],
      },
    },
  };
}

export function landingRoutes(deps: LandingDeps): RouteDef[] {
  const signer = deps.appFlow ? stateSigner(deps.appFlow.stateSeed) : null;
  /** Seats whose app-flow return this node is recording. */
  const returning = new Set<string>();
  const landing = { kind: 'landing', cspHashes: landingHashes } as const;
  return [
    { method: 'GET', pattern: '/webhooks/chat-oauth', ...landing, handler: chatOauth },
    { method: 'GET', pattern: '/webhooks/codehost-a-app', ...landing, handler: (req) => codehostApp(deps, signer, returning, req) },
    // Write rule 10: a non-writer on a managed document is refused before anything is read.
    // It reads no query parameter, as every /setup route declares (any is 400 bad_params, no state issued);
    // the return page above declares none on purpose: the vendor sends parameters of its own beside ours.
    { method: 'POST', pattern: '/setup/codehost-a-app/:handle', access: 'guarded', query: [], beforeBody: (req) => void (deps.auth && assertCompanyWriter(deps.auth, req.actor)), handler: (req) => begin(deps, signer, req) },
  ]; // prettier-ignore
}
