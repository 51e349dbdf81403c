/**
 * codehost-b provisioning (REST API v4, `PRIVATE-TOKEN` header): the group must exist, listed
 * projects are created in it when missing, with `token_scopes` each agent seat without a token of its own
 * gets a group access token (a bot member of the group at `access_level`), and with `group_webhook`
 * (`true` or `auto`) the group webhook at the public URL is registered with the signing secret.
 * Disconnect removes the webhooks it registered (webhook.step.ts; the seats' tokens stay: revoke them in
 * the group's settings).
 */
import { CodehostBAccessLevels } from '../../../schema/index.js';
import { baseUrl, credential, vendorCall, VendorError } from './vendor-http.js';
import { listOf, objectAt, stringList, type PassContext } from './pass-context.js';
import { mintSeatTokens } from './seat-tokens.js';
import { hookOf, webhookStep } from './webhook.step.js';

const product = 'codehost-b';
/** The role a seat's token holds when `access_level` is not set. */
const DEFAULT_ACCESS_LEVEL = 'developer';
/** Group access tokens must expire, within a year: a seat's is minted for a year less a day. */
const TOKEN_LIFETIME_DAYS = 364;

type Call = (path: string, opts?: Parameters<typeof vendorCall>[2]) => ReturnType<typeof vendorCall>;

/**
 * With `token_scopes`, each agent seat without a token of its own gets a group access token named
 * `svc-<handle>` at the group's `access_level`; the value goes to `ctx.keep` (sealed by the caller,
 * referenced from the seat) and nowhere else.
 */
async function mintGroupTokens(
  ctx: PassContext,
  call: Call,
  groupId: unknown,
  provisioning: Record<string, unknown>,
) {
  const scopes = stringList(provisioning['token_scopes']);
  if (scopes.length === 0) return;
  const levelName =
    typeof provisioning['access_level'] === 'string' ? provisioning['access_level'] : DEFAULT_ACCESS_LEVEL;
  const level = CodehostBAccessLevels.get(levelName) ?? 0;
  const expires = new Date(Date.now() + TOKEN_LIFETIME_DAYS * 24 * 3600 * 1000).toISOString().slice(0, 10);
  // A token below guest could do nothing in the group; the vendor refuses one too.
  const unable = level < 10 ? `access level ${levelName} gives a token no access: none minted` : null;
  await mintSeatTokens(
    ctx,
    product,
    async (handle) => {
      const answer = await call(`/groups/${String(groupId)}/access_tokens`, {
        method: 'POST',
        body: { name: `svc-${handle}`, scopes, access_level: level, expires_at: expires },
      });
      return {
        value: objectAt({ a: answer.json }, 'a')['token'],
        detail: `group access token svc-${handle} minted (${levelName}; ${scopes.join(', ')}), expiring ${expires}`,
      };
    },
    unable,
  );
}

export async function codehostBPass(ctx: PassContext): Promise<void> {
  const base = `${baseUrl(product, ctx.settings['url'])}/api/v4`;
  const headers = { 'PRIVATE-TOKEN': credential(product, 'token', ctx.settings['token']) };
  const call = (path: string, opts: Parameters<typeof vendorCall>[2] = {}) =>
    vendorCall(product, `${base}${path}`, { ...opts, headers }, ctx.timeoutMs);
  const provisioning = objectAt(ctx.settings, 'provisioning');
  const group = typeof provisioning['group'] === 'string' ? provisioning['group'] : '';
  if (group === '') {
    ctx.step('group', 'skipped', 'provisioning.group is not set: nothing to provision');
    return;
  }
  // 1. the group (never created: it is the operator's)
  const found = await call(`/groups/${encodeURIComponent(group)}`, { accept: [404] });
  if (found.status === 404)
    throw new VendorError(`${product}: group ${group} does not exist or the token cannot see it`);
  const groupId = objectAt({ g: found.json }, 'g')['id'];
  ctx.step('group', 'ok', `group ${group} exists`);
  if (ctx.mode !== 'disconnect') {
    // 2. projects inside the group
    for (const project of stringList(provisioning['projects'])) {
      const path = `${group}/${project}`;
      const seen = await call(`/projects/${encodeURIComponent(path)}`, { accept: [404] });
      if (seen.status !== 404) ctx.step(`project ${project}`, 'ok', `${path} exists`);
      else if (ctx.mode === 'check') ctx.step(`project ${project}`, 'missing', `${path} does not exist`);
      else {
        await call('/projects', {
          method: 'POST',
          body: { name: project, path: project, namespace_id: groupId },
        });
        ctx.step(`project ${project}`, 'changed', `${path} created`);
      }
    }
  }
  // 3. the seats' tokens
  if (ctx.mode === 'provision') await mintGroupTokens(ctx, call, groupId, provisioning);
  // 4. the group webhook
  // `auto` is how documents written for the original product say it: manage the hook as `true` does.
  const managed = provisioning['group_webhook'] === true || provisioning['group_webhook'] === 'auto';
  // A hook it registered is removed on disconnect even when the switch was turned off since.
  if (!managed && !(ctx.mode === 'disconnect' && ctx.hooks.length > 0)) {
    ctx.step('group webhook', 'skipped', 'provisioning.group_webhook is neither true nor auto');
    return;
  }
  const hooks = `/groups/${String(groupId)}/hooks`;
  await webhookStep(ctx, {
    product,
    step: 'group webhook',
    list: async () => listOf((await call(hooks)).json).flatMap((h) => hookOf(h) ?? []),
    register: async (url) => {
      const answer = await call(hooks, {
        method: 'POST',
        body: {
          url,
          token: credential(product, 'signing_secret', ctx.settings['signing_secret']),
          push_events: true,
          merge_requests_events: true,
          issues_events: true,
          note_events: true,
        },
      });
      return hookOf({ url, id: objectAt({ a: answer.json }, 'a')['id'] })?.id ?? null;
    },
    remove: async (id) => void (await call(`${hooks}/${encodeURIComponent(id)}`, { method: 'DELETE' })),
  });
}
