/**
 * The per-seat codehost-a app flow's effects: convert the manifest code, seal the private key and the
 * webhook secret into the secret store (`Commands.secrets.put`), then record `app_id`, `app_slug`,
 * `installation_id: 0` and `${NAME}` pointers on the seat through `Commands.config.write`.
 * Absent (503 on the flow's routes) without a keyring or without the code host's locations.
 */
import { createHmac } from 'node:crypto';
import { convertManifest } from '../actors/index.js';
import { sendCommand, type Bus, keyringFrom, openDocument } from '../bus/index.js';
import type { AppCompletion, AppFlow } from '../http/index.js';
import { activeRevision, type ConfigView } from '../projections/index.js';
import { Commands, seatIdentity, type ConfigWrite, type SecretPut, type TierA } from '../schema/index.js';
import { isRecord, type JsonObject as Json } from '../schema/index.js';

const actor = { id: 'codehost-a-app', kind: 'node' } as const;

/** `CODEHOST_A_APP_<HANDLE>_<WHAT>` in the secret-name grammar. */
export const appSecretName = (handle: string, what: 'PRIVATE_KEY' | 'WEBHOOK_SECRET'): string =>
  `CODEHOST_A_APP_${handle.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${what}`;

/** The document with the seat's codehost-a app recorded; null when the seat is not in it. */
export function withApp(document: unknown, handle: string, app: Json): unknown {
  const doc = structuredClone(document);
  let found = false;
  const visit = (roles: unknown): void => {
    if (!Array.isArray(roles)) return;
    for (const seat of roles) {
      if (!isRecord(seat) || seatIdentity(seat) !== handle) continue;
      const integrations = isRecord(seat['integrations']) ? seat['integrations'] : {};
      const current = isRecord(integrations['codehost_a']) ? integrations['codehost_a'] : {};
      seat['integrations'] = { ...integrations, codehost_a: { ...current, ...app } };
      found = true;
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
  return found ? doc : null;
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

  const seal = async (name: string, value: string): Promise<boolean> => {
    const put: SecretPut = { name, value_b64: Buffer.from(value).toString('base64'), source: 'setup', actor };
    const reply = await sendCommand(opts.bus, Commands.secrets.put, put, { timeoutMs: 10_000 });
    return reply.outcome === 'ok';
  };

  const record = async (handle: string, app: Json): Promise<AppCompletion> => {
    // One retry: another writer may win the compare-and-set between our read and our write.
    for (let attempt = 0; attempt < 2; attempt++) {
      const active = activeRevision(opts.view.state);
      if (!active) return { ok: false, status: 503, reason: 'No configuration is active.' };
      const document = withApp(openDocument(keyring, active.payload, active.revision_id), handle, app);
      if (document === null)
        return { ok: false, status: 400, reason: `Seat ${handle} is not in the active configuration.` };
      const command: ConfigWrite = {
        document,
        basis_revision_id: active.revision_id,
        precondition: { if_match: active.revision_id, if_none_match_any: false },
        rules: 'write',
        dry_run: false,
        actor,
        source: 'setup.codehost-a-app',
        summary: `codehost-a app ${String(app['app_slug'])} recorded for seat ${handle}`,
      };
      const reply = await sendCommand(opts.bus, Commands.config.write, command);
      if (reply.outcome === 'stored')
        return {
          ok: true,
          app_id: String(app['app_id']),
          app_slug: String(app['app_slug']),
          revision_id: reply.revision_id,
        };
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
    async complete(handle, code) {
      const converted = await convertManifest(api, code);
      if (!converted.ok) return converted;
      const { id, slug, pem, webhook_secret: secret } = converted.app;
      const keyName = appSecretName(handle, 'PRIVATE_KEY');
      const secretName = appSecretName(handle, 'WEBHOOK_SECRET');
      // 1. seal first: the document only ever points at values that exist.
      if (!(await seal(keyName, pem)) || !(await seal(secretName, secret ?? '')))
        return { ok: false, status: 503, reason: 'The secret store refused the app credentials.' };
      // 2. then record the app on the seat.
      return record(handle, {
        app_id: typeof id === 'number' ? id : String(id),
        app_slug: slug,
        installation_id: 0,
        private_key: `\${${keyName}}`,
        webhook_secret: `\${${secretName}}`,
      });
    },
  };
}
