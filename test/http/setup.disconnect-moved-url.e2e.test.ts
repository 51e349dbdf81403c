/**
 * A disconnect removes the webhook the service registered even when `SVC_PUBLIC_BASE_URL` has changed or no
 * longer resolves since: the node remembers each hook it registered (its exact address and id) and deletes
 * by that. A hook at another address it did not register is never deleted on a guess; when the node cannot
 * tell whether the vendor still holds its hook, `remote` says so and names what to delete by hand.
 */
import type { Test } from 'tap';
import t from 'tap';
import { fakeCodehostB, fakeTrackerB } from './fixtures/fake-vendors.js';
import { company, json, KEYRING, startSetupNode, type Json, type SetupNode } from './fixtures/setup-node.js';

const OLD = 'https://old.example.test';
const NEW = 'https://new.example.test';
const TB_TOKEN = 'tb-admin-token-0123456789';
const CB_TOKEN = 'cb-owner-token-0123456789';

const trackerB = (url: string): Json =>
  company({
    integrations: {
      tracker_b: { url, workspace: 'acme', token: '${TB_TOKEN}', webhook_secret: 'tb-webhook-secret' },
    },
  });

async function setPublicBase(node: SetupNode, value: string | null): Promise<void> {
  const res =
    value === null
      ? await node.call('DELETE', '/secrets/SVC_PUBLIC_BASE_URL')
      : await node.call('PUT', '/secrets/SVC_PUBLIC_BASE_URL', {
          body: value,
          headers: { 'content-type': 'text/plain' },
        });
  if (res.status !== 200 && res.status !== 201) throw new Error(`secret answered ${res.status}`);
}

async function provisioned(t: Test) {
  const vendor = await fakeTrackerB(t, TB_TOKEN);
  const node = await startSetupNode(t, { tierA: KEYRING, env: { TB_TOKEN } });
  await node.putDocument(trackerB(vendor.url));
  await setPublicBase(node, OLD);
  const run = await json(await node.call('POST', '/setup/integrations/tracker-b/provision'));
  t.match(run, { status: 'succeeded' });
  t.same(
    vendor.hooks.map((h) => h['url']),
    [`${OLD}/webhooks/tracker-b`],
  );
  return { vendor, node };
}

t.test(
  'tracker-b: after the public URL changed, a disconnect removes the hook at the old address',
  async (t) => {
    const { vendor, node } = await provisioned(t);
    await setPublicBase(node, NEW);
    const res = await json(await node.call('DELETE', '/setup/integrations/tracker-b'));
    t.match(res, { removed: true, remote: { status: 'succeeded', reason: null } });
    t.same(vendor.hooks, [], 'the hook it registered is gone from the vendor');
    t.ok(
      vendor.seen.some((s) => s.method === 'DELETE' && s.path === '/api/v1/workspaces/acme/webhooks/wh-1/'),
      'deleted by the id it registered',
    );
  },
);

t.test(
  'tracker-b: with the public URL unset, a disconnect still removes the hook it registered',
  async (t) => {
    const { vendor, node } = await provisioned(t);
    await setPublicBase(node, null);
    const res = await json(await node.call('DELETE', '/setup/integrations/tracker-b'));
    t.match(res, { removed: true, remote: { status: 'succeeded', reason: null } });
    t.same(vendor.hooks, []);
  },
);

t.test(
  'a hook at another address it never registered is kept: another installation may own it',
  async (t) => {
    const { vendor, node } = await provisioned(t);
    vendor.hooks.push({ id: 'wh-other', url: 'https://staging.example.test/webhooks/tracker-b' });
    await setPublicBase(node, NEW);
    const res = await json(await node.call('DELETE', '/setup/integrations/tracker-b'));
    t.match(res, { remote: { status: 'succeeded', reason: null } });
    t.same(
      vendor.hooks.map((h) => h['id']),
      ['wh-other'],
      'only its own hook went',
    );
  },
);

t.test(
  'nothing remembered and the public URL unresolved: remote reads failed, naming the hook to delete by hand',
  async (t) => {
    const vendor = await fakeTrackerB(t, TB_TOKEN);
    const node = await startSetupNode(t, { tierA: KEYRING, env: { TB_TOKEN } });
    await node.putDocument(trackerB(vendor.url));
    // Registered by an earlier build (or by hand) at an address the node no longer resolves.
    vendor.hooks.push({ id: 'wh-7', url: `${OLD}/webhooks/tracker-b` });
    const res = await json(await node.call('DELETE', '/setup/integrations/tracker-b'));
    t.match(res, {
      removed: true,
      remote: { status: 'failed', reason: new RegExp(`${OLD}/webhooks/tracker-b.*by hand`) },
    });
    t.equal(vendor.hooks.length, 1, 'not deleted on a guess');
    t.match(await json(await node.call('GET', '/setup/integrations/tracker-b')), { configured: false });
  },
);

t.test('nothing remembered, nothing at the vendor for this path: a clean disconnect', async (t) => {
  const vendor = await fakeTrackerB(t, TB_TOKEN);
  const node = await startSetupNode(t, { tierA: KEYRING, env: { TB_TOKEN } });
  await node.putDocument(trackerB(vendor.url));
  const res = await json(await node.call('DELETE', '/setup/integrations/tracker-b'));
  t.match(res, { removed: true, remote: { status: 'succeeded', reason: null } });
});

t.test(
  'codehost-b: after the public URL changed, a disconnect removes the group hook it registered',
  async (t) => {
    const vendor = await fakeCodehostB(t, CB_TOKEN);
    const node = await startSetupNode(t, { tierA: KEYRING, env: { CB_TOKEN } });
    await node.putDocument(
      company({
        integrations: {
          codehost_b: {
            url: vendor.url,
            token: '${CB_TOKEN}',
            signing_secret: 'cb-signing-secret',
            provisioning: { group: 'acme', group_webhook: true },
          },
        },
      }),
    );
    await setPublicBase(node, OLD);
    t.match(await json(await node.call('POST', '/setup/integrations/codehost-b/provision')), {
      status: 'succeeded',
    });
    t.equal(vendor.hooks.length, 1);
    await setPublicBase(node, NEW);
    const res = await json(await node.call('DELETE', '/setup/integrations/codehost-b'));
    t.match(res, { removed: true, remote: { status: 'succeeded', reason: null } });
    t.same(vendor.hooks, [], 'the hook it registered is gone from the vendor');
  },
);
