/**
 * A real `svc serve` with no keyring: every route that seals or opens a secret answers 503 `no_keyring`
 * (spec, Secrets and setup routes), the code-host app's begin route included — the app it starts has its
 * private key and webhook secret sealed — even where the code host's locations are configured.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

const company = {
  name: 'Acme',
  timezone: 'UTC',
  integrations: { tracker_b: { enabled: true, url: 'https://tb.example.test', workspace: 'w' } },
  roles: [{ handle: 'ada', name: 'Ada' }],
};

t.test('without a keyring every route that seals or opens answers 503 no_keyring', async (t) => {
  const node = await startNode(t, '', 'memory', {
    SVC_CODEHOST_A_API_URL: 'https://codehost.example.test/api',
    SVC_CODEHOST_A_WEB_URL: 'https://codehost.example.test',
    SVC_PUBLIC_BASE_URL: 'https://svc.example.test',
  });
  const call = (method: string, path: string, body?: string) =>
    fetch(`${node.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'test' },
      ...(body === undefined ? {} : { body }),
    });
  const first = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'if-none-match': '*', 'x-summary': 'first' },
    body: JSON.stringify(company),
  });
  t.equal(first.status, 201, await first.clone().text());
  for (const [method, path, body] of [
    ['PUT', '/secrets/A_TOKEN', 'value'],
    ['GET', '/secrets/A_TOKEN?reveal=true'],
    ['POST', '/secrets/rekey'],
    ['POST', '/setup/integrations/tracker-b/inputs', JSON.stringify({ values: { token: 'tok-1234567890' } })],
    ['POST', '/setup/integrations/tracker-b/inputs', JSON.stringify({ generate: ['webhook_secret'] })],
    ['POST', '/setup/integrations/monitor/inputs', JSON.stringify({ generate: ['webhook_token'] })],
    ['POST', '/setup/codehost-a-app/ada'],
  ] as const) {
    const res = await call(method, path, body);
    t.equal(res.status, 503, `${method} ${path}`);
    t.match(
      await res.json(),
      { error: 'no_keyring', detail: String, hint: /secrets\.keys/ },
      `${method} ${path}`,
    );
  }
});
