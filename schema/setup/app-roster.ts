/**
 * The code-host tool's roster (spec "Per-seat code-host app setup"): one entry per agent seat with
 * `tier`, `step` and `action_url`, read from what the seat's `integrations.codehost_a` block records.
 *
 * - no app yet: `step: create_app`, `action_url: ""` (the app is made by posting a manifest through
 *   `POST /setup/codehost-a-app/{handle}`), `tier: org` (only the organisation's webhook reaches it);
 * - an app whose installation id is still `0`: `step: install_app`, `action_url` the code host's install
 *   page for that app's slug, `tier: org`;
 * - an installation id above 0: no pending step (`step: null`, `action_url: ""`), `tier: seat`.
 */
import { isRecord } from '../document/index.js';
import { seatSegments, valueAt } from './doc-paths.js';

export type AppStep = 'create_app' | 'install_app';
/** Where the seat meets the code host: through the organisation's webhook, or its own installed app. */
export type AppTier = 'org' | 'seat';

export interface AppRosterEntry {
  readonly handle: string;
  readonly tier: AppTier;
  readonly step: AppStep | null;
  readonly action_url: string;
  readonly app_id: string | number | null;
  readonly app_slug: string | null;
  readonly installation_id: number | null;
}

/** `https://<host>/apps/<slug>/installations/new` under the code host's web location; "" without one. */
export function installUrl(webUrl: string | null, slug: string): string {
  if (webUrl === null || webUrl === '') return '';
  return `${webUrl.replace(/\/+$/, '')}/apps/${encodeURIComponent(slug)}/installations/new`;
}

export function appRoster(
  document: unknown,
  agentSeats: readonly string[],
  webUrl: string | null,
): AppRosterEntry[] {
  return agentSeats.map((handle) => {
    const at = seatSegments(document, handle);
    const raw = at === null ? undefined : valueAt(document, [...at, 'integrations', 'codehost_a']);
    const app = isRecord(raw) ? raw : {};
    const id = app['app_id'];
    const appId = typeof id === 'number' || (typeof id === 'string' && id !== '') ? id : null;
    const slug = typeof app['app_slug'] === 'string' && app['app_slug'] !== '' ? app['app_slug'] : null;
    const inst = app['installation_id'];
    const installation = typeof inst === 'number' ? inst : null;
    const base = { handle, app_id: appId, app_slug: slug, installation_id: installation };
    if (appId === null || slug === null) return { ...base, tier: 'org', step: 'create_app', action_url: '' };
    if (installation === null || installation <= 0)
      return { ...base, tier: 'org', step: 'install_app', action_url: installUrl(webUrl, slug) };
    return { ...base, tier: 'seat', step: null, action_url: '' };
  });
}
