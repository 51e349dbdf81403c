/**
 * codehost-b provisioning (REST API v4, `PRIVATE-TOKEN` header): the group must exist, listed
 * projects are created in it when missing, and with `group_webhook` (`true` or `auto`) the group
 * webhook at the public URL is registered with the signing secret. Disconnect removes that webhook.
 */
import { baseUrl, credential, vendorCall, VendorError } from './vendor-http.js';
import { listOf, objectAt, stringList, type PassContext } from './pass-context.js';

const product = 'codehost-b';

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
  // 3. the group webhook
  // `auto` is how documents written for the original product say it: manage the hook as `true` does.
  const managed = provisioning['group_webhook'] === true || provisioning['group_webhook'] === 'auto';
  if (!managed) {
    ctx.step('group webhook', 'skipped', 'provisioning.group_webhook is neither true nor auto');
    return;
  }
  if (ctx.publicUrl === null) {
    ctx.step(
      'group webhook',
      ctx.mode === 'disconnect' ? 'skipped' : 'missing',
      'no public base URL is configured',
    );
    return;
  }
  const hooks = listOf((await call(`/groups/${String(groupId)}/hooks`)).json);
  const ours = hooks.find((h) => h['url'] === ctx.publicUrl);
  if (ctx.mode === 'disconnect') {
    if (!ours) ctx.step('group webhook', 'ok', 'no webhook at the public URL to remove');
    else {
      await call(`/groups/${String(groupId)}/hooks/${String(ours['id'])}`, { method: 'DELETE' });
      ctx.step('group webhook', 'changed', 'webhook at the public URL removed');
    }
  } else if (ours) ctx.step('group webhook', 'ok', 'a webhook at the public URL exists');
  else if (ctx.mode === 'check') ctx.step('group webhook', 'missing', 'no webhook at the public URL');
  else {
    await call(`/groups/${String(groupId)}/hooks`, {
      method: 'POST',
      body: {
        url: ctx.publicUrl,
        token: credential(product, 'signing_secret', ctx.settings['signing_secret']),
        push_events: true,
        merge_requests_events: true,
        issues_events: true,
        note_events: true,
      },
    });
    ctx.step('group webhook', 'changed', 'webhook at the public URL registered');
  }
}
