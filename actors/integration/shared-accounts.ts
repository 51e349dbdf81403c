/**
 * The shared account agents act through on tracker-a and wiki, as the vendor knows it. Cloud payloads
 * name their sender by account id only, which the document does not hold (the block has an e-mail at
 * most), so routing asks the vendor's "who am I" with the block's credential on the first delivery that
 * needs it and keeps the answer per (integration, credential): a changed credential is asked again. A
 * vendor that cannot be reached gives no ids (events are then told own by e-mail alone), is logged by
 * integration, and is asked again on a need after `retryMs`. Never rejects: routing must not stall on it.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { siteAccount, VendorError } from './vendors/index.js';

export type SiteIntegration = 'tracker-a' | 'wiki';

export interface SharedAccountsOptions {
  readonly logger: Logger;
  /** The cloud sites' API gateway (`SVC_CLOUD_SITE_API_URL`); default its public address. */
  readonly cloudApiUrl?: string;
  /** Per "who am I" call. Default 5 s: the longest the first delivery after a change waits. */
  readonly timeoutMs?: number;
  /** How long an unanswered look-up stands before the next need asks again. Default 60 s. */
  readonly retryMs?: number;
}

interface Entry {
  /** The block it was asked for: the same object (a delivery between rebuilds) needs no digest. */
  settings: object;
  readonly key: string;
  ids: Promise<readonly string[]>;
  failedAt: number | null;
}

const none: readonly string[] = [];

export class SharedAccounts {
  readonly #entries = new Map<SiteIntegration, Entry>();
  readonly #opts: SharedAccountsOptions;

  constructor(opts: SharedAccountsOptions) {
    this.#opts = opts;
  }

  /** Lowercased identities of the account `settings` (the integration's resolved block) acts as; none without a block. */
  ids(
    integration: SiteIntegration,
    settings: Readonly<Record<string, unknown>> | undefined,
  ): Promise<readonly string[]> {
    if (settings === undefined) {
      this.#entries.delete(integration);
      return Promise.resolve(none);
    }
    const entry = this.#entries.get(integration);
    // A rebuilt block with the same site and credential is the same account.
    if (entry !== undefined && entry.settings !== settings && entry.key === this.#digest(settings))
      entry.settings = settings;
    if (entry?.settings === settings) {
      if (entry.failedAt === null) return entry.ids;
      if (performance.now() - entry.failedAt < (this.#opts.retryMs ?? 60_000)) return Promise.resolve(none);
    }
    const key = entry?.settings === settings ? entry.key : this.#digest(settings);
    const fresh: Entry = { settings, key, ids: Promise.resolve(none), failedAt: null };
    fresh.ids = this.#ask(integration, settings, fresh);
    this.#entries.set(integration, fresh);
    return fresh.ids;
  }

  /** What decides the account: where the site is and the credential (kept only as this digest). */
  #digest(settings: Readonly<Record<string, unknown>>): string {
    const parts = [
      settings['url'],
      settings['cloud_id'],
      settings['email'],
      settings['token'],
      this.#opts.cloudApiUrl,
    ];
    return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  }

  async #ask(
    integration: SiteIntegration,
    settings: Readonly<Record<string, unknown>>,
    entry: Entry,
  ): Promise<readonly string[]> {
    const { logger } = this.#opts;
    try {
      const answer = await siteAccount(
        integration,
        settings,
        this.#opts.timeoutMs ?? 5000,
        this.#opts.cloudApiUrl,
      );
      const ids = answer.map((id) => id.toLowerCase());
      logger.info({ event: 'shared_account_resolved', integration }, 'shared_account_resolved');
      return ids;
    } catch (error) {
      entry.failedAt = performance.now();
      // Our words only: a VendorError never quotes the vendor or a credential.
      const reason =
        error instanceof VendorError ? error.message : `${integration}: the look-up stopped unexpectedly`;
      logger.warn(
        { event: 'shared_account_unresolved', integration, reason },
        "shared_account_unresolved: the shared account's own actions are told by e-mail only until it answers",
      );
      return none;
    }
  }
}
