import t from 'tap';
import { fakeCodehostB } from './fixtures/fake-vendors.js';
import { company, json, KEYRING, startSetupNode, type Json } from './fixtures/setup-node.js';

const CB_TOKEN = 'cb-owner-token-0123456789';

/**
 * A disconnect removes at the third party first, then the block. Another revision stored while the
 * vendor call runs must not turn the answer into a coded refusal (which says nothing was done) when the
 * webhook is already gone at the vendor: the block is removed from the revision now active.
 */
for (const precondition of ['none', 'If-Match'] as const) {
  t.test(
    `disconnect removes the block even when another revision is stored during the vendor call (${precondition})`,
    async (t) => {
      const vendor = await fakeCodehostB(t, CB_TOKEN);
      const node = await startSetupNode(t, {
        tierA: KEYRING,
        env: { SVC_PUBLIC_BASE_URL: 'https://hooks.example.test' },
      });
      await node.putDocument(company());
      const inputs = await node.call('POST', '/setup/integrations/codehost-b/inputs', {
        body: {
          values: { url: vendor.url, token: CB_TOKEN, group: 'acme', group_webhook: true },
          generate: ['signing_secret'],
        },
      });
      t.equal(inputs.status, 201);
      t.equal((await node.call('POST', '/setup/integrations/codehost-b/provision')).status, 200);
      t.equal(vendor.hooks.length, 1, 'the group webhook is registered');
      const active = (await json(await node.call('GET', '/setup/integrations/codehost-b')))['revision_id'];

      // Another writer stores a revision while the vendor deletes the hook.
      let other: string | null = null;
      vendor.beforeAnswer = async (seen) => {
        if (seen.method !== 'DELETE' || other !== null) return;
        const doc = await json(await node.call('GET', '/config'));
        other = await node.putDocument({ ...doc, mission: 'written during the disconnect' });
      };
      const res = await node.call('DELETE', '/setup/integrations/codehost-b', {
        headers: precondition === 'If-Match' ? { 'if-match': `"${String(active)}"` } : {},
      });
      const body = await json(res);
      t.equal(res.status, 200, JSON.stringify(body));
      t.ok(other, 'the other revision was stored during the vendor call');
      t.equal(vendor.hooks.length, 0, 'the webhook is gone at the vendor');
      t.match(body, { kind: 'codehost-b', removed: true, remote: { status: 'succeeded' } });
      const doc = await json(await node.call('GET', '/config'));
      t.notOk('codehost_b' in ((doc['integrations'] as Json | undefined) ?? {}), 'the block is removed');
      t.equal(doc['mission'], 'written during the disconnect', "the other writer's change stays");
      const state = await json(await node.call('GET', '/setup/integrations/codehost-b'));
      t.match(state, { configured: false, revision_id: body['revision_id'] });
    },
  );
}
