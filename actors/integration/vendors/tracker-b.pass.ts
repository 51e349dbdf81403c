/**
 * tracker-b provisioning (REST API v1, `X-API-Key` header, under one workspace): listed projects are
 * created when missing, each agent seat gets a member named prefix + handle with the configured role,
 * and the workspace webhook at the public URL is registered with the webhook secret. Disconnect
 * removes the webhooks it registered (webhook.step.ts; members and projects stay: they hold the company's
 * work).
 */
import { VendorIds } from '../../../schema/index.js';
import { baseUrl, credential, vendorCall, VendorError } from './vendor-http.js';
import { listOf, objectAt, stringList, type PassContext } from './pass-context.js';
import { mintSeatTokens } from './seat-tokens.js';
import { hookOf, webhookStep } from './webhook.step.js';

const product = 'tracker-b';

type Call = (path: string, opts?: Parameters<typeof vendorCall>[2]) => ReturnType<typeof vendorCall>;

/** With `token_expiry_days`, each agent seat without a token of its own gets one minted for its member. */
async function mintMemberTokens(ctx: PassContext, call: Call, prefix: string, days: unknown): Promise<void> {
  if (typeof days !== 'number') return;
  await mintSeatTokens(ctx, product, async (handle) => {
    const username = `${prefix}${handle}`;
    const answer = await call(`/members/${encodeURIComponent(username)}/api-tokens/`, {
      method: 'POST',
      body: { label: 'svc', expires_in_days: days },
    });
    return {
      value: objectAt({ a: answer.json }, 'a')['token'],
      detail: `token minted for ${username}, expiring in ${days} days`,
    };
  });
}

export async function trackerBPass(ctx: PassContext): Promise<void> {
  const workspace = ctx.settings['workspace'];
  if (typeof workspace !== 'string' || workspace === '')
    throw new VendorError(`${product}: workspace is not set`);
  const base = `${baseUrl(product, ctx.settings['url'])}/api/v1/workspaces/${encodeURIComponent(workspace)}`;
  const headers = { 'X-API-Key': credential(product, 'token', ctx.settings['token']) };
  const call = (path: string, opts: Parameters<typeof vendorCall>[2] = {}) =>
    vendorCall(product, `${base}${path}`, { ...opts, headers }, ctx.timeoutMs);
  const provisioning = objectAt(ctx.settings, 'provisioning');
  if (ctx.mode !== 'disconnect') {
    // 1. projects
    const projects = listOf((await call('/projects/')).json).map((p) => p['identifier']);
    for (const key of stringList(provisioning['projects'])) {
      if (projects.includes(key)) ctx.step(`project ${key}`, 'ok', `project ${key} exists`);
      else if (ctx.mode === 'check') ctx.step(`project ${key}`, 'missing', `project ${key} does not exist`);
      else {
        await call('/projects/', { method: 'POST', body: { name: key, identifier: key } });
        ctx.step(`project ${key}`, 'changed', `project ${key} created`);
      }
    }
    // 2. one member per agent seat
    const prefix = provisioning['username_prefix'];
    if (typeof prefix !== 'string' || prefix === '') {
      ctx.step('seat members', 'skipped', 'provisioning.username_prefix is not set');
    } else {
      // The setup inputs refuse another shape; a document written by hand or a ${VAR} may still hold one.
      if (!VendorIds.username_prefix.safeParse(prefix).success)
        throw new VendorError(
          `${product}: provisioning.username_prefix is not a username prefix (letters, digits, _ . and -)`,
        );
      const members = listOf((await call('/members/')).json).map((m) => m['username']);
      const role = typeof provisioning['role'] === 'string' ? provisioning['role'] : 'member';
      for (const handle of ctx.agentSeats) {
        const username = `${prefix}${handle}`;
        if (members.includes(username)) ctx.step(`member ${username}`, 'ok', `member ${username} exists`);
        else if (ctx.mode === 'check') ctx.step(`member ${username}`, 'missing', `no member ${username}`);
        else {
          await call('/members/', { method: 'POST', body: { username, role, display_name: handle } });
          ctx.step(`member ${username}`, 'changed', `member ${username} created as ${role}`);
        }
      }
      if (ctx.mode === 'provision')
        await mintMemberTokens(ctx, call, prefix, provisioning['token_expiry_days']);
    }
  }
  // 3. the workspace webhook
  await webhookStep(ctx, {
    product,
    step: 'webhook',
    list: async () => listOf((await call('/webhooks/')).json).flatMap((h) => hookOf(h) ?? []),
    register: async (url) => {
      const secret = credential(product, 'webhook_secret', ctx.settings['webhook_secret']);
      const answer = await call('/webhooks/', { method: 'POST', body: { url, secret, is_active: true } });
      return hookOf({ url, id: objectAt({ a: answer.json }, 'a')['id'] })?.id ?? null;
    },
    remove: async (id) => void (await call(`/webhooks/${encodeURIComponent(id)}/`, { method: 'DELETE' })),
  });
}
