/**
 * Integration blocks (spec "Integration blocks") and a seat's own integration credentials. The
 * spec names the chat bot credentials and "the code-host token" on a seat; the per-seat code-host
 * app flow records `app_id`, `app_slug`, the installation id and a pointer to the sealed key there.
 */
import { z } from 'zod';
import { email, positive, strings, text, url } from './fields.js';

/** tracker-a and wiki: `url` (self-hosted) or `cloud_id` (cloud), not both (a rule). */
const SiteBlock = {
  url: url.optional(),
  cloud_id: text.optional(),
  token: text.optional(),
  email: email.optional(),
  webhook_secret: text.optional(),
};

export const TrackerA = z.strictObject(SiteBlock);
export const Wiki = z.strictObject(SiteBlock);

/** Enable-marker only: per-seat chat credentials live on seats. */
export const Chat = z.strictObject({});

export const CodehostA = z.strictObject({ webhook_secret: text });

/** Access levels codehost-b knows for members (names or their numeric values). */
export const CodehostBAccessLevels: ReadonlyMap<string, number> = new Map([
  ['no_access', 0],
  ['minimal_access', 5],
  ['guest', 10],
  ['planner', 15],
  ['reporter', 20],
  ['developer', 30],
  ['maintainer', 40],
  ['owner', 50],
]);

export const CodehostB = z.strictObject({
  enabled: z.boolean().optional(),
  url: url.optional(),
  signing_secret: text.optional(),
  token: text.optional(),
  provisioning: z
    .strictObject({
      group: text.optional(),
      /** Checked against CodehostBAccessLevels; an unknown level is a warning, not a refusal. */
      access_level: z.union([z.string(), z.number().int()]).optional(),
      projects: strings.optional(),
      /** `auto` (the original product's spelling) means what `true` does: create the hook when missing. */
      group_webhook: z.union([z.boolean(), z.literal('auto')]).optional(),
      token_scopes: strings.optional(),
    })
    .optional(),
});

export const TrackerB = z.strictObject({
  enabled: z.boolean().optional(),
  url: url.optional(),
  workspace: text.optional(),
  webhook_secret: text.optional(),
  token: text.optional(),
  provisioning: z
    .strictObject({
      role: text.optional(),
      username_prefix: text.optional(),
      projects: strings.optional(),
      token_expiry_days: positive.optional(),
    })
    .optional(),
});

export const Integrations = z.strictObject({
  tracker_a: TrackerA.optional(),
  wiki: Wiki.optional(),
  chat: Chat.optional(),
  codehost_a: CodehostA.optional(),
  codehost_b: CodehostB.optional(),
  tracker_b: TrackerB.optional(),
  /** The relay's `aud` for invocation tokens. */
  relay_app_id: text.optional(),
});
export type Integrations = z.infer<typeof Integrations>;

/** A seat's own credentials: every one is runtime-only, so human seats carry none of them. */
export const SeatIntegrations = z.strictObject({
  chat: z.strictObject({ bot_token: text.optional(), signing_secret: text.optional() }).optional(),
  codehost_a: z
    .strictObject({
      app_id: z.union([z.number().int(), z.string()]).optional(),
      app_slug: text.optional(),
      installation_id: z.number().int().min(0).optional(),
      /** A `${NAME}` pointer to the sealed private key in the secret store. */
      private_key: text.optional(),
      webhook_secret: text.optional(),
    })
    .optional(),
  codehost_b: z.strictObject({ token: text.optional() }).optional(),
  tracker_b: z.strictObject({ token: text.optional() }).optional(),
});

/** A unit's routing identity and write home (not a read scope). */
export const UnitIntegrations = z.strictObject({
  tracker_b: z.strictObject({ project: text.optional() }).optional(),
  wiki: z.strictObject({ space: text.optional() }).optional(),
});
