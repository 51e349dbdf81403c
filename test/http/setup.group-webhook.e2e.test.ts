import t from 'tap';
import { fakeCodehostB } from './fixtures/fake-vendors.js';
import { company, KEYRING, startSetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
type Run = Json & { status: string; steps: Json[] };
const PUBLIC = 'https://hooks.example.test';
const CB_TOKEN = 'cb-owner-token-0123456789';

t.test(
  'provisioning.group_webhook: auto validates, reads as switched on, and provision creates the missing hook',
  async (t) => {
    const vendor = await fakeCodehostB(t, CB_TOKEN);
    const node = await startSetupNode(t, { tierA: KEYRING, env: { SVC_PUBLIC_BASE_URL: PUBLIC } });
    await node.putDocument(company());
    // Credentials sealed through setup; the switch itself is written the way the original product's documents do.
    const inputs = await node.call('POST', '/setup/integrations/codehost-b/inputs', {
      body: { values: { url: vendor.url, token: CB_TOKEN, group: 'acme' }, generate: ['signing_secret'] },
    });
    t.equal(inputs.status, 201);
    const patch = await node.call('PATCH', '/config', {
      body: { integrations: { codehost_b: { provisioning: { group_webhook: 'auto' } } } },
      headers: { 'content-type': 'application/merge-patch+json', 'x-summary': 'auto hook' },
    });
    t.equal(patch.status, 201, 'a document saying group_webhook: auto is accepted');

    const state = (await (await node.call('GET', '/setup/integrations/codehost-b')).json()) as {
      requirements: Json[];
    };
    t.match(
      state.requirements.find((r) => r['field'] === 'group_webhook'),
      { value: true, present: true },
    );

    const check = (await (await node.call('POST', '/setup/integrations/codehost-b/check')).json()) as Run;
    t.match(
      check.steps.find((s) => s['name'] === 'group webhook'),
      { outcome: 'missing' },
    );
    const provision = (await (
      await node.call('POST', '/setup/integrations/codehost-b/provision')
    ).json()) as Run;
    t.equal(provision.status, 'succeeded');
    t.match(
      provision.steps.find((s) => s['name'] === 'group webhook'),
      { outcome: 'changed' },
    );
    t.equal(vendor.hooks.length, 1);
    t.equal(vendor.hooks[0]!['url'], `${PUBLIC}/webhooks/codehost-b`);

    const refused = await node.call('PATCH', '/config', {
      body: { integrations: { codehost_b: { provisioning: { group_webhook: 'yes' } } } },
      headers: { 'content-type': 'application/merge-patch+json', 'x-summary': 'bad' },
    });
    t.equal(refused.status, 400, 'any other string is still refused');
    t.match(await refused.json(), {
      problems: [{ path: 'integrations.codehost_b.provisioning.group_webhook' }],
    });
  },
);
