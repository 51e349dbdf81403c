/**
 * The landing pages over a real listener: the chat install page shows the code and the seat from
 * `state`, escaped, under a policy of default none plus the hash of its own style; the code-host app
 * return page renders the vendor's error (escaped, 400), confirms an install of an agent seat without
 * writing (200; another handle 400), and answers 503 where the node has no setup surface (the begin
 * route: 503 `setup_unavailable`).
 */
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { openAuth } from '../fixtures/gateway-harness.js';
import type { AppFlow } from '../../../http/webhooks/landing.routes.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

function styleHash(html: string): string {
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
  return `sha256-${createHash('sha256').update(style, 'utf8').digest('base64')}`;
}

t.test('landing pages', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const get = (path: string) => fetch(`${node.h.base}${path}`);

  await t.test('the chat install page shows the temporary code and the seat, escaped', async (t) => {
    const res = await get('/webhooks/chat-oauth?code=1234.abcd%3Cb%3E&state=ada');
    t.equal(res.status, 200);
    const html = await res.text();
    t.match(html, /1234\.abcd&#60;b&#62;/);
    t.notMatch(html, /<b>1234/);
    t.match(html, /<b>ada<\/b>/);
    t.match(html, /10 minutes/);
    const csp = res.headers.get('content-security-policy') ?? '';
    t.match(csp, /^default-src 'none'/);
    t.ok(csp.includes(`style-src '${styleHash(html)}'`), 'the policy lists the hash of the page style');
    t.notMatch(csp, /script-src/, 'no script on the page, none allowed');
    t.equal(res.headers.get('x-frame-options'), 'DENY');
  });

  await t.test('the chat install page without a code is 400', async (t) => {
    t.equal((await get('/webhooks/chat-oauth?state=ada')).status, 400);
    const err = await get('/webhooks/chat-oauth?error=access_denied%3Cscript%3E');
    t.equal(err.status, 400);
    t.notMatch(await err.text(), /<script>/);
  });

  await t.test("the app return page renders the vendor's error description escaped, with 400", async (t) => {
    const res = await get(
      '/webhooks/codehost-a-app?error=access_denied&error_description=%3Cimg%20src%3Dx%3E%20denied',
    );
    t.equal(res.status, 400);
    const html = await res.text();
    t.match(html, /&#60;img src&#61;x&#62; denied/);
    t.notMatch(html, /<img/);
  });

  await t.test('a query parameter is shown cut to 80 characters and escaped, on both pages', async (t) => {
    const long = `<script>"'${'x'.repeat(3000)}`;
    const q = encodeURIComponent(long);
    const pages = [
      `/webhooks/chat-oauth?error=${q}`,
      `/webhooks/chat-oauth?code=abc&state=${q}`,
      `/webhooks/chat-oauth?code=abc&state=${'a'.repeat(3000)}`,
      `/webhooks/codehost-a-app?error=${q}`,
      `/webhooks/codehost-a-app?error=access_denied&error_description=${q}`,
      `/webhooks/codehost-a-app?installed=${q}`,
    ];
    for (const path of pages) {
      const html = await (await get(path)).text();
      t.notMatch(html, /<script|"'/, `${path.slice(0, 40)}: escaped`);
      t.notMatch(html, /x{75}|a{81}/, `${path.slice(0, 40)}: cut to 80 characters`);
    }
    const shown = await (await get(`/webhooks/codehost-a-app?error=e&error_description=${q}`)).text();
    t.match(shown, '&#60;script&#62;&#34;&#39;' + 'x'.repeat(70), 'the first 80 characters are shown');
  });

  await t.test('an install confirmation with no setup surface on this node is 503', async (t) => {
    for (const handle of ['ada', 'nobody']) {
      const res = await get(`/webhooks/codehost-a-app?installed=${handle}&installation_id=5`);
      t.equal(res.status, 503, handle);
      t.notMatch(await res.text(), /is installed/);
    }
  });

  await t.test('a code with no setup surface on this node is 503', async (t) => {
    t.equal((await get('/webhooks/codehost-a-app?code=abc&state=x.y')).status, 503);
  });

  await t.test('the begin route with no setup surface answers 503 with an error code', async (t) => {
    const res = await fetch(`${node.h.base}/setup/codehost-a-app/ada`, {
      method: 'POST',
      headers: { authorization: `Bearer ${openAuth.tokens[0]!.token}` },
    });
    t.equal(res.status, 503);
    t.match(await res.json(), {
      error: 'setup_unavailable',
      detail: /setup surface/,
      hint: /SVC_CODEHOST_A_API_URL/,
    });
  });
});

t.test('an install confirmation names an agent seat of the active document, else 400', async (t) => {
  // The install confirmation reads no part of the flow: it only needs this node to have one.
  const appFlow: AppFlow = {
    stateSeed: randomBytes(32),
    manifestPostUrl: 'https://codehost.example/settings/apps/new',
    appOf: () => '',
    complete: () => Promise.resolve({ ok: false, status: 400, reason: 'not in this test' }),
    installation: () => Promise.resolve(),
  };
  const node = await startWebhookNode({ appFlow });
  t.teardown(() => node.close());
  const get = (path: string) => fetch(`${node.h.base}${path}`);
  const res = await get('/webhooks/codehost-a-app?installed=ada&installation_id=5&setup_action=install');
  t.equal(res.status, 200);
  t.match(await res.text(), /<b>ada<\/b> is installed/);
  for (const handle of ['nobody', 'bob', '%3Cx%3E']) {
    const refused = await get(`/webhooks/codehost-a-app?installed=${handle}`);
    t.equal(refused.status, 400, `${handle}: unknown, a human seat, or no handle at all`);
    t.notMatch(await refused.text(), /is installed/);
  }
});

t.test(
  'the begin route refuses a manifest without a public address; an unknown seat is quoted cut',
  async (t) => {
    const appFlow: AppFlow = {
      stateSeed: randomBytes(32),
      manifestPostUrl: 'https://codehost.example/settings/apps/new',
      appOf: () => '',
      complete: () => Promise.resolve({ ok: false, status: 400, reason: 'not in this test' }),
      installation: () => Promise.resolve(),
    };
    const begin = async (publicBaseUrl: string | null, handle = 'ada') => {
      const node = await startWebhookNode({ appFlow, publicBaseUrl });
      t.teardown(() => node.close());
      const res = await fetch(`${node.h.base}/setup/codehost-a-app/${handle}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${openAuth.tokens[0]!.token}` },
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    // The code host calls the app's webhook and return addresses itself: a relative path reaches nobody.
    const unset = await begin(null);
    t.equal(unset.status, 503);
    t.match(unset.body, { error: 'setup_unavailable', hint: /SVC_PUBLIC_BASE_URL/ });
    t.notOk('manifest' in unset.body, 'no manifest with relative addresses');
    const long = await begin('https://svc.example/', 'a'.repeat(3000));
    t.equal(long.status, 404);
    t.notMatch(JSON.stringify(long.body), 'a'.repeat(81), 'an unknown handle is quoted cut to 80 characters');
    const set = await begin('https://svc.example/');
    t.equal(set.status, 200);
    t.match(set.body, {
      manifest: {
        hook_attributes: { url: 'https://svc.example/webhooks/codehost-a/ada' },
        redirect_url: 'https://svc.example/webhooks/codehost-a-app',
        setup_url: 'https://svc.example/webhooks/codehost-a-app?installed=ada',
      },
    });
  },
);

t.test(
  'the begin route reads no query parameter: any is 400 bad_params naming it, and no state is issued',
  async (t) => {
    let issued = 0;
    const appFlow: AppFlow = {
      stateSeed: randomBytes(32),
      manifestPostUrl: 'https://codehost.example/settings/apps/new',
      appOf: () => {
        issued += 1;
        return '';
      },
      complete: () => Promise.resolve({ ok: false, status: 400, reason: 'not in this test' }),
      installation: () => Promise.resolve(),
    };
    const node = await startWebhookNode({ appFlow });
    t.teardown(() => node.close());
    const begin = (query: string) =>
      fetch(`${node.h.base}/setup/codehost-a-app/ada${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${openAuth.tokens[0]!.token}` },
      });
    for (const [query, name] of [
      ['?dry_run=true', 'dry_run'],
      ['?seat=bob', 'seat'],
      ['?state=x.y', 'state'],
    ] as const) {
      const res = await begin(query);
      t.equal(res.status, 400, query);
      t.match(await res.json(), { error: 'bad_params', detail: new RegExp(`\\b${name}\\b`) }, 'naming it');
    }
    t.equal(issued, 0, 'no state issued');
    t.equal((await begin('')).status, 200, 'without one the flow begins');
    t.equal(issued, 1);
    // The return page is the vendor's: it keeps reading past the parameters it is sent beside its own.
    const back = await fetch(`${node.h.base}/webhooks/codehost-a-app?installed=ada&installation_id=5&x=1`);
    t.equal(back.status, 200);
  },
);
