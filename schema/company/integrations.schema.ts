/**
 * Integration blocks (spec "Integration blocks") and a seat's own integration credentials. The
 * spec names the chat bot credentials and "the code-host token" on a seat; the per-seat code-host
 * app flow records `app_id`, `app_slug`, the installation id and a pointer to the sealed key there.
 */
import { z } from 'zod';
import { email, positive, strings, text, url } from './fields.js';

/** tracker-a and wiki: `url` (self-hosted) or `cloud_id` (cloud), not both (a rule). */
const SiteBlock = {
  url: url.optional().describe('Base URL of a self-hosted site; give this or cloud_id.'),
  cloud_id: text.optional().describe('Cloud site id; give this or url.'),
  token: text.optional().describe('API token (a secret, usually ${VAR}).'),
  email: email.optional().describe('Account email the token belongs to (cloud).'),
  webhook_secret: text.optional().describe('Secret that signs its webhook deliveries.'),
};

export const TrackerA = z.strictObject(SiteBlock);
export const Wiki = z.strictObject(SiteBlock);

/** Enable-marker only: per-seat chat credentials live on seats. */
export const Chat = z.strictObject({});

export const CodehostA = z.strictObject({
  webhook_secret: text.describe('Secret that signs its webhook deliveries (required).'),
});

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

const enabled = z.boolean().optional().describe('false: configured but switched off.');

export const CodehostB = z.strictObject({
  enabled,
  url: url.optional().describe('Base URL of the instance.'),
  signing_secret: text.optional().describe('Secret its webhook deliveries carry.'),
  token: text.optional().describe('API token used to provision (a secret, usually ${VAR}).'),
  provisioning: z
    .strictObject({
      group: text.optional().describe('Group agents are made members of.'),
      /** Checked against CodehostBAccessLevels; an unknown level is a warning, not a refusal. */
      access_level: z
        .union([z.string(), z.number().int()])
        .optional()
        .describe(`Members' access level: ${[...CodehostBAccessLevels.keys()].join(', ')}, or its number.`),
      projects: strings.optional().describe('Projects agents get access to.'),
      /** `auto` (the original product's spelling) means what `true` does: create the hook when missing. */
      group_webhook: z
        .union([z.boolean(), z.literal('auto')])
        .optional()
        .describe('true or auto: create the group webhook when missing.'),
      token_scopes: strings.optional().describe('Scopes of the tokens minted for agents.'),
    })
    .optional()
    .describe('What the provisioning pass creates for agents.'),
});

export const TrackerB = z.strictObject({
  enabled,
  url: url.optional().describe('Base URL of the instance.'),
  workspace: text.optional().describe('Workspace slug.'),
  webhook_secret: text.optional().describe('Secret that signs its webhook deliveries.'),
  token: text.optional().describe('API token used to provision (a secret, usually ${VAR}).'),
  provisioning: z
    .strictObject({
      role: text.optional().describe('Role agents get.'),
      username_prefix: text.optional().describe('Prefix of the usernames made for agents.'),
      projects: strings.optional().describe('Projects agents join.'),
      token_expiry_days: positive.optional().describe('Days an agent’s minted token lives.'),
    })
    .optional()
    .describe('What the provisioning pass creates for agents.'),
});

export const Integrations = z.strictObject({
  tracker_a: TrackerA.optional().describe('Tracker A (cloud or self-hosted).'),
  wiki: Wiki.optional().describe('The wiki (excludes tracker_b: one knowledge backend).'),
  chat: Chat.optional().describe('Chat, enabled by an empty object; bot credentials live on seats.'),
  codehost_a: CodehostA.optional().describe('Code host A (shared webhook; per-seat apps on seats).'),
  codehost_b: CodehostB.optional().describe('Code host B.'),
  tracker_b: TrackerB.optional().describe('Tracker B (excludes wiki: one knowledge backend).'),
  /** The relay's `aud` for invocation tokens. */
  relay_app_id: text.optional().describe('The relay’s app id: the `aud` its invocation tokens carry.'),
});
export type Integrations = z.infer<typeof Integrations>;

/** A seat's own credentials: every one is runtime-only, so human seats carry none of them. */
const seatToken = z
  .strictObject({ token: text.optional().describe('The seat’s own token (a secret).') })
  .optional();

export const SeatIntegrations = z.strictObject({
  chat: z
    .strictObject({
      bot_token: text.optional().describe('The seat’s chat bot token (a secret).'),
      signing_secret: text.optional().describe('Secret that signs the seat’s chat deliveries.'),
    })
    .optional()
    .describe('The seat’s own chat app.'),
  codehost_a: z
    .strictObject({
      app_id: z.union([z.number().int(), z.string()]).optional().describe('Id of the seat’s app.'),
      app_slug: text.optional().describe('Slug of the seat’s app.'),
      installation_id: z.number().int().min(0).optional().describe('Installation id of the seat’s app.'),
      /** A `${NAME}` pointer to the sealed private key in the secret store. */
      private_key: text.optional().describe('A ${NAME} pointing at the app’s sealed private key.'),
      webhook_secret: text.optional().describe('Secret that signs the app’s deliveries.'),
    })
    .optional()
    .describe('The seat’s own code-host A app (written by the app setup flow).'),
  codehost_b: seatToken.describe('The seat’s code-host B token.'),
  tracker_b: seatToken.describe('The seat’s tracker B token.'),
});

/** A unit's routing identity and write home (not a read scope). */
export const UnitIntegrations = z.strictObject({
  tracker_b: z
    .strictObject({ project: text.optional().describe('Tracker B project the unit’s work goes to.') })
    .optional()
    .describe('Tracker B routing.'),
  wiki: z
    .strictObject({ space: text.optional().describe('Wiki space the unit writes to.') })
    .optional()
    .describe('Wiki home.'),
  /** The native tracker's project this unit owns (ops/work-tracker.md "Projects"). */
  work: z
    .strictObject({
      project: z
        .string()
        .regex(/^[A-Z][A-Z0-9]{1,9}$/, 'an upper-case project key of 2 to 10 letters and digits')
        .describe('Key of the project (items are KEY-1, KEY-2, ...).'),
      name: text.optional().describe('Display name; the unit’s name when unset.'),
      description: text.optional().describe('What the project is for.'),
      target_date: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
        .optional()
        .describe('When the project aims to be done.'),
      archived: z.boolean().optional().describe('Archived projects are listed only on request.'),
    })
    .optional()
    .describe('Native work tracker project (tracker.backend: native).'),
});
