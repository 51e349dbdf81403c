import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

const KEYRING = `secrets: {active_key_id: k1, keys: [{id: k1, material: ${Buffer.alloc(32, 9).toString('base64')}}]}`;
type Json = Record<string, unknown>;

t.test(
  'svc serve answers the setup routes: seal a credential, patch the document, read the state',
  async (t) => {
    const { url, run } = await startNode(t, KEYRING);
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'e2e' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    t.equal((await fetch(`${url}/setup/integrations`)).status, 401, 'guarded, reads included');
    const put = await call('PUT', '/config', { name: 'Acme', roles: [{ name: 'Bo Agent' }] });
    t.equal(put.status, 201);
    const revision = ((await put.json()) as Json)['revision_id'] as string;
    const res = await call('POST', '/setup/integrations/codehost-a/inputs', {
      if_match: revision,
      values: { webhook_secret: 'codehost-a-shared-secret-0001' },
    });
    const text = await res.text();
    t.equal(res.status, 201, text);
    t.notMatch(text, 'codehost-a-shared-secret-0001');
    const config = (await (await call('GET', '/config')).json()) as Json;
    t.same((config['integrations'] as Json)['codehost_a'], {
      webhook_secret: '${SVC_CODEHOST_A_WEBHOOK_SECRET}',
    });
    const state = await call('GET', '/setup/integrations/codehost-a');
    const stateText = await state.text();
    t.notMatch(stateText, 'codehost-a-shared-secret-0001');
    t.match(JSON.parse(stateText), {
      key: 'codehost-a',
      configured: true,
      satisfied: true,
      requirements: [
        { field: 'webhook_secret', value: '${SVC_CODEHOST_A_WEBHOOK_SECRET}', resolved: 'store' },
      ],
    });
    const stale = await call('POST', '/setup/integrations/codehost-a/inputs', {
      if_match: revision,
      generate: ['webhook_secret'],
    });
    t.equal(stale.status, 409);
    t.notMatch(JSON.stringify(run.lines), 'codehost-a-shared-secret-0001', 'never logged');
  },
);
