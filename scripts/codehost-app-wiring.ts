/**
 * The per-seat codehost-a app flow's effects: convert the manifest code, seal the private key and the
 * webhook secret into the secret store (`Commands.secrets.put`), then record `app_id`, `app_slug`,
 * `installation_id: 0` and `${NAME}` pointers on the seat through `Commands.config.write`; later the
 * installation id a verified installation delivery names (0 again on uninstall), which moves the seat past
 * `install_app` in the setup roster.
 * Absent (503 on the flow's routes) without a keyring or without the code host's locations.
 */
import { createHmac } from 'node:crypto';
import { convertManifest } from '../actors/index.js';
import { sendCommand, type Bus, keyringFrom, openDocument } from '../bus/index.js';
import type { AppCompletion, AppFlow, AppInstallation } from '../http/index.js';
import { activeRevision, type ConfigView } from '../projections/index.js';
import { Commands, installUrl, knownKeysAt, seatIdentity, unknownKeyPaths } from '../schema/index.js';
import type { ConfigWrite, SecretPut, TierA } from '../schema/index.js';
import { isRecord, ReservedActor, type JsonObject as Json } from '../schema/index.js';

/** The flow itself: the writer of an installation delivery's change, or of a return whose state names nobody. */
const flowActor = { id: ReservedActor.CodehostApp, kind: 'node' } as const;
type Writer = ConfigWrite['actor'];

/** `CODEHOST_A_APP_<HANDLE>_<WHAT>` in the secret-name grammar. */
export const appSecretName = (handle: string, what: 'PRIVATE_KEY' | 'WEBHOOK_SECRET'): string =>
  `CODEHOST_A_APP_${handle.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${what}`;

/**
 * The document with `change` applied to the seat's codehost-a block (`change` answers the fields to merge,
 * or null for nothing to do); `missing` when the seat is not in it, `unchanged` when nothing is to do.
 */
function withApp(document: unknown, handle: string, change: (current: Json) => Json | null): unknown {
  const doc = structuredClone(document);
  let found = 'missing' as 'missing' | 'unchanged' | 'changed';
  const visit = (roles: unknown): void => {
    if (!Array.isArray(roles)) return;
    for (const seat of roles) {
      if (!isRecord(seat) || seatIdentity(seat) !== handle) continue;
      const integrations = isRecord(seat['integrations']) ? seat['integrations'] : {};
      const current = isRecord(integrations['codehost_a']) ? integrations['codehost_a'] : {};
      const app = change(current);
      if (found === 'missing') found = 'unchanged';
      if (app === null) continue;
      seat['integrations'] = { ...integrations, codehost_a: { ...current, ...app } };
      found = 'changed';
    }
  };
  const units = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const u of list) {
      if (!isRecord(u)) continue;
      visit(u['roles']);
      units(u['children']);
    }
  };
  if (isRecord(doc)) {
    visit(doc['roles']);
    units(doc['units']);
  }
  return found === 'changed' ? doc : found;
}

/** The app id a seat's codehost-a block holds, as a string; `''` when none. */
function appIdOf(block: Json): string {
  const raw = block['app_id'];
  return typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw : '';
}

/** The app id the seat `handle` holds in `document`; `''` when none (or no such seat). */
function appIn(document: unknown, handle: string): string {
  let app = '';
  withApp(document, handle, (current) => {
    app = appIdOf(current);
    return null;
  });
  return app;
}

/** What an installation delivery changes on the seat's block; null when it is not this app's or already so. */
function installationChange(current: Json, change: AppInstallation): Json | null {
  const appId = appIdOf(current);
  if (appId === '') return null;
  if (change.app_id !== null && change.app_id !== appId) return null;
  const known = typeof current['installation_id'] === 'number' ? current['installation_id'] : 0;
  if (change.action === 'created')
    return known === change.installation_id ? null : { installation_id: change.installation_id };
  return known === change.installation_id ? { installation_id: 0 } : null;
}

export function codehostAppFlow(opts: {
  bus: Bus;
  view: ConfigView;
  config: TierA;
  env?: Readonly<Record<string, string | undefined>>;
}): AppFlow | undefined {
  const env = opts.env ?? process.env;
  const keyring = keyringFrom(opts.config.secrets);
  const api = env['SVC_CODEHOST_A_API_URL'];
  const web = env['SVC_CODEHOST_A_WEB_URL'];
  const material = keyring?.keys.get(keyring.activeKeyId);
  if (!keyring || !material || !api || !web) return undefined;
  // Every node with the same keyring derives the same state key, so any node accepts the return.
  const stateSeed = createHmac('sha256', material).update('svc:codehost-a-app:state').digest();

  const seal = async (name: string, value: string, actor: Writer): Promise<boolean> => {
    const put: SecretPut = { name, value_b64: Buffer.from(value).toString('base64'), source: 'setup', actor };
    const reply = await sendCommand(opts.bus, Commands.secrets.put, put, { timeoutMs: 10_000 });
    return reply.outcome === 'ok';
  };

  type Refused = Extract<AppCompletion, { ok: false }>;
  type Recorded = { ok: true; revision_id: string | null } | Refused;
  const spent: Refused = {
    ok: false,
    status: 400,
    reason:
      "This link was already used, or the seat's app changed since it was issued. Start again from the seat's setup page.",
  };
  const activeDocument = (): { revision_id: string; document: unknown } | null => {
    const active = activeRevision(opts.view.state);
    if (!active) return null;
    return {
      revision_id: active.revision_id,
      document: openDocument(keyring, active.payload, active.revision_id),
    };
  };
  /** `against`: the app id the seat must still hold (a state's), checked on every document written. */
  const record = async (
    handle: string,
    change: (current: Json) => Json | null,
    summary: string,
    actor: Writer,
    against?: string,
  ): Promise<Recorded> => {
    // One retry: another writer may win the compare-and-set between our read and our write.
    for (let attempt = 0; attempt < 2; attempt++) {
      const active = activeDocument();
      if (!active) return { ok: false, status: 503, reason: 'No configuration is active.' };
      if (against !== undefined && appIn(active.document, handle) !== against) return spent;
      const document = withApp(active.document, handle, change);
      if (document === 'missing')
        return { ok: false, status: 400, reason: `Seat ${handle} is not in the active configuration.` };
      if (document === 'unchanged') return { ok: true, revision_id: null };
      const command: ConfigWrite = {
        document,
        basis_revision_id: active.revision_id,
        precondition: { if_match: active.revision_id, if_none_match_any: false },
        rules: 'write',
        dry_run: false,
        actor,
        source: 'setup.codehost-a-app',
        summary,
        // The stored document with the seat's app fields set: keys a newer build wrote stay (write rule 8).
        carried: unknownKeyPaths(document, knownKeysAt),
      };
      const reply = await sendCommand(opts.bus, Commands.config.write, command);
      if (reply.outcome === 'stored') {
        // Read-your-writes: this node's setup reads (the roster) show the change once this answers.
        const id = reply.revision_id;
        await opts.view.until((state) => activeRevision(state)?.revision_id === id, 5_000);
        return { ok: true, revision_id: id };
      }
      if (reply.outcome === 'refused' && reply.error === 'revision_advanced') continue;
      return {
        ok: false,
        status: 400,
        reason: `The configuration refused the app (${reply.outcome === 'refused' ? reply.error : reply.outcome}).`,
      };
    }
    return { ok: false, status: 503, reason: 'The configuration kept moving; try again.' };
  };

  return {
    stateSeed,
    manifestPostUrl: `${web.replace(/\/+$/, '')}/settings/apps/new`,
    appOf(handle) {
      const active = activeDocument();
      return active ? appIn(active.document, handle) : '';
    },
    async complete(handle, code, by, against) {
      const actor = by ?? flowActor;
      // A spent or stale state: its code is never sent, nothing is sealed over the seat's app.
      const active = activeDocument();
      if (active && appIn(active.document, handle) !== against) return spent;
      const converted = await convertManifest(api, code);
      if (!converted.ok) return converted;
      const { id, slug, pem, webhook_secret: secret } = converted.app;
      const keyName = appSecretName(handle, 'PRIVATE_KEY');
      const secretName = appSecretName(handle, 'WEBHOOK_SECRET');
      // 1. seal first: the document only ever points at values that exist.
      if (!(await seal(keyName, pem, actor)) || !(await seal(secretName, secret ?? '', actor)))
        return { ok: false, status: 503, reason: 'The secret store refused the app credentials.' };
      // 2. then record the app on the seat.
      const app = {
        app_id: typeof id === 'number' ? id : String(id),
        app_slug: slug,
        installation_id: 0,
        private_key: `\${${keyName}}`,
        webhook_secret: `\${${secretName}}`,
      };
      const summary = `codehost-a app ${slug} recorded for seat ${handle}`;
      const done = await record(handle, () => app, summary, actor, against);
      if (!done.ok) return done;
      return {
        ok: true,
        app_id: String(id),
        app_slug: slug,
        revision_id: done.revision_id ?? '',
        install_url: installUrl(web, slug),
      };
    },
    async installation(handle, change) {
      const done = await record(
        handle,
        (current) => installationChange(current, change),
        `codehost-a app of seat ${handle} ${change.action === 'created' ? `installed (installation ${change.installation_id})` : 'uninstalled'}`,
        flowActor,
      );
      if (!done.ok) throw new Error(done.reason);
    },
  };
}
