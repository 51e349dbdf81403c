/**
 * What the receivers need to verify deliveries, read from the active (already `${VAR}`-resolved)
 * company document plus the few secrets the document has no field for. A secret that resolves empty
 * counts as not configured, so its route fails closed (503).
 */
import { seatDirectory, type Company, type SeatDirectory } from '../../schema/index.js';

export interface WebhookSettings {
  /** The revision these settings come from; null on an unconfigured node. */
  readonly revision: string | null;
  readonly trackerA: { readonly configured: boolean; readonly secret: string | null };
  /** `secret`: self-hosted HMAC (`webhook_secret`); `token`: the cloud shared token. */
  readonly wiki: {
    readonly configured: boolean;
    readonly secret: string | null;
    readonly token: string | null;
  };
  readonly chat: { readonly configured: boolean };
  readonly codehostA: { readonly configured: boolean; readonly secret: string | null };
  readonly codehostB: { readonly configured: boolean; readonly secret: string | null };
  readonly trackerB: { readonly configured: boolean; readonly secret: string | null };
  readonly monitor: { readonly token: string | null };
  readonly relay: { readonly appId: string | null; readonly keySetUrl: string | null };
  readonly directory: SeatDirectory;
}

/** Secrets with no document field (see ops/webhooks.md): already resolved, store first then env. */
export interface ExtraSecrets {
  /** `SVC_MONITOR_WEBHOOK_TOKEN` */
  readonly monitorToken: string | null;
  /** `SVC_WIKI_WEBHOOK_TOKEN` */
  readonly wikiToken: string | null;
  /** `SVC_RELAY_JWKS_URL` */
  readonly relayKeySetUrl: string | null;
}

/**
 * A credential as a receiver uses it: outer whitespace dropped (a value written from an env file or with
 * `echo` ends in a newline no vendor signs with), and an empty one is none.
 */
const nonEmpty = (v: string | undefined): string | null => {
  const trimmed = v?.trim();
  return trimmed !== undefined && trimmed !== '' ? trimmed : null;
};
const enabled = (b: { readonly enabled?: boolean | undefined } | undefined): boolean =>
  b !== undefined && b.enabled !== false;

export const unconfiguredSettings = (extra?: Partial<ExtraSecrets>): WebhookSettings => ({
  revision: null,
  trackerA: { configured: false, secret: null },
  wiki: { configured: false, secret: null, token: null },
  chat: { configured: false },
  codehostA: { configured: false, secret: null },
  codehostB: { configured: false, secret: null },
  trackerB: { configured: false, secret: null },
  monitor: { token: extra?.monitorToken ?? null },
  relay: { appId: null, keySetUrl: extra?.relayKeySetUrl ?? null },
  directory: { seats: new Map(), units: [] },
});

export function webhookSettingsFrom(
  revision: string,
  resolved: Company,
  extra: ExtraSecrets,
): WebhookSettings {
  const {
    tracker_a: trackerA,
    wiki,
    codehost_a: codehostA,
    codehost_b: codehostB,
    tracker_b: trackerB,
  } = resolved.integrations ?? {};
  return {
    revision,
    trackerA: { configured: trackerA !== undefined, secret: nonEmpty(trackerA?.webhook_secret) },
    wiki: {
      configured: wiki !== undefined,
      secret: nonEmpty(wiki?.webhook_secret),
      token: wiki !== undefined ? extra.wikiToken : null,
    },
    chat: { configured: resolved.integrations?.chat !== undefined },
    codehostA: { configured: codehostA !== undefined, secret: nonEmpty(codehostA?.webhook_secret) },
    codehostB: {
      configured: enabled(codehostB),
      secret: enabled(codehostB) ? nonEmpty(codehostB?.signing_secret) : null,
    },
    trackerB: {
      configured: enabled(trackerB),
      secret: enabled(trackerB) ? nonEmpty(trackerB?.webhook_secret) : null,
    },
    monitor: { token: extra.monitorToken },
    relay: { appId: nonEmpty(resolved.integrations?.relay_app_id), keySetUrl: extra.relayKeySetUrl },
    directory: seatDirectory(resolved),
  };
}

/** A seat's own credential for a per-seat route (`chat.signing_secret`, `codehost_a.webhook_secret`). */
export function seatSecret(
  settings: WebhookSettings,
  handle: string,
  integration: 'chat' | 'codehost_a',
  field: string,
): string | null {
  const seat = settings.directory.seats.get(handle);
  if (!seat || seat.kind !== 'agent') return null;
  const value = seat.integrations[integration]?.[field];
  return typeof value === 'string' ? nonEmpty(value) : null;
}
