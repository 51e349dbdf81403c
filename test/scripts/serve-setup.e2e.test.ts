import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { closedPort } from '../http/fixtures/fake-vendors.js';

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

t.test(
  'no setup answer of a served node carries a credential: sealed, generated, from the environment or literal',
  async (t) => {
    const ENV_TOKEN = 'env-canary-tb-token-4c9d01';
    const LITERAL = 'literal-canary-tb-secret-7a2e';
    const SEALED = 'sealed-canary-ca-secret-93b6';
    const { url, run } = await startNode(t, KEYRING, 'memory', {
      TB_ENV_TOKEN: ENV_TOKEN,
      SVC_PUBLIC_BASE_URL: 'https://svc.example.test',
    });
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'e2e' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    const vendor = `http://127.0.0.1:${await closedPort()}`;
    const put = await call('PUT', '/config', {
      name: 'Acme',
      roles: [{ name: 'Bo Agent' }],
      integrations: {
        tracker_b: { url: vendor, workspace: 'acme', token: '${TB_ENV_TOKEN}', webhook_secret: LITERAL },
      },
    });
    t.equal(put.status, 201, await put.clone().text());
    const answers: Array<[string, string]> = [];
    const keep = async (label: string, res: Response): Promise<Json> => {
      const text = await res.text();
      answers.push([label, text]);
      return JSON.parse(text) as Json;
    };
    await keep(
      'inputs',
      await call('POST', '/setup/integrations/codehost-a/inputs', { values: { webhook_secret: SEALED } }),
    );
    await keep(
      'generate',
      await call('POST', '/setup/integrations/monitor/inputs', { generate: ['webhook_token'] }),
    );
    const reveal = await fetch(`${url}/secrets/SVC_MONITOR_WEBHOOK_TOKEN?reveal=true`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const generated = await reveal.text();
    t.ok(generated.length >= 26, 'the generated token is in the store, and only the store shows it');

    const list = await keep('list', await call('GET', '/setup/integrations'));
    t.match(list['public_base_url'], { present: true, resolved: 'https://svc.example.test' });
    for (const s of list['integrations'] as Json[])
      await keep(String(s['key']), await call('GET', `/setup/integrations/${String(s['key'])}`));
    for (const kind of ['tracker-b', 'monitor', 'codehost-a']) {
      for (const mode of ['check', 'provision']) {
        const pass = await keep(`${kind} ${mode}`, await call('POST', `/setup/integrations/${kind}/${mode}`));
        await keep(
          `${kind} run`,
          await call('GET', `/setup/integrations/${kind}/runs/${String(pass['id'])}`),
        );
      }
      await keep(`${kind} runs`, await call('GET', `/setup/integrations/${kind}/runs`));
    }
    const missing = await call('GET', '/setup/integrations/monitor/runs/no-such-run');
    t.equal(missing.status, 404);
    t.match(await keep('missing run', missing), { error: 'not_found' });
    for (const kind of ['codehost-a', 'monitor', 'tracker-b'])
      await keep(`disconnect ${kind}`, await call('DELETE', `/setup/integrations/${kind}`));

    t.ok(answers.length > 25, `${answers.length} answers read`);
    for (const [label, text] of answers) {
      for (const canary of [ENV_TOKEN, LITERAL, SEALED, generated])
        t.notMatch(text, canary, `${label}: no credential`);
    }
    for (const canary of [ENV_TOKEN, LITERAL, SEALED, generated])
      t.notMatch(run.stdout() + run.stderr(), canary, 'no log line either');
  },
);
