/**
 * A query parameter the landing pages or the wiki cloud receiver read one value of, given more than once,
 * is refused rather than its first value taken: the landing pages answer their 400 page (nothing is
 * converted), the wiki cloud receiver 401 like a bad token, counted and logged as refused.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { Streams } from '../../../bus/index.js';
import type { AppFlow } from '../../../http/webhooks/landing.routes.js';
import { SECRETS } from './fixtures/company.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

t.test('a landing page parameter given twice is the page’s 400, and nothing is converted', async (t) => {
  const completed: string[] = [];
  const appFlow: AppFlow = {
    stateSeed: randomBytes(32),
    manifestPostUrl: 'https://codehost.example/settings/apps/new',
    appOf: () => '',
    complete: (handle) => {
      completed.push(handle);
      return Promise.resolve({ ok: false, status: 400, reason: 'not in this test' });
    },
    installation: () => Promise.resolve(),
  };
  const node = await startWebhookNode({ appFlow });
  t.teardown(() => node.close());
  const get = (path: string) => fetch(`${node.h.base}${path}`);
  for (const path of [
    '/webhooks/chat-oauth?code=a&code=b&state=ada',
    '/webhooks/chat-oauth?code=a&state=ada&state=bob',
    '/webhooks/chat-oauth?error=x&error=y',
    '/webhooks/codehost-a-app?code=a&code=b&state=x.y',
    '/webhooks/codehost-a-app?code=a&state=x.y&state=z.w',
    '/webhooks/codehost-a-app?error=a&error=b',
    '/webhooks/codehost-a-app?installed=ada&installed=bob',
  ]) {
    const res = await get(path);
    t.equal(res.status, 400, path);
    t.equal(res.headers.get('content-type')?.startsWith('text/html'), true, `${path}: the HTML page`);
    const html = await res.text();
    t.match(html, /is given 2 times; this page takes one/, path);
    t.notMatch(html, /Temporary code|is installed/, `${path}: nothing shown as done`);
  }
  t.same(completed, [], 'no code was converted');
  const once = await get('/webhooks/chat-oauth?code=a&state=ada');
  t.equal(once.status, 200, 'given once, the page reads it as before');
});

t.test('a wiki cloud `?token=` given twice is refused 401 like a bad token, counted', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const body = JSON.stringify({ event: 'page_updated', page: { id: 'p-1', title: 'Runbook' } });
  const token = encodeURIComponent(SECRETS.wikiToken);
  const refusedBefore = () =>
    node.h.logs.filter((l) => l['event'] === 'webhook_refused' && l['surface'] === 'wiki/cloud').length;
  for (const [label, query, headers] of [
    ['the good token twice', `?token=${token}&token=${token}`, {}],
    ['a wrong token then the good one', `?token=wrong&token=${token}`, {}],
    ['twice beside the good header', `?token=${token}&token=x`, { 'x-service-token': SECRETS.wikiToken }],
  ] as const) {
    const before = refusedBefore();
    const res = await node.post(`/webhooks/wiki/page_updated${query}`, body, headers);
    t.equal(res.status, 401, label);
    t.match(res.json, { error: 'invalid_token', detail: /bad token/ }, label);
    t.equal(refusedBefore(), before + 1, `${label}: counted and logged as refused`);
  }
  t.equal((await node.messages(Streams.WebhooksWiki)).length, 0, 'nothing in the wiki audit store');
  const once = await node.post(`/webhooks/wiki/page_updated?token=${token}`, body);
  t.equal(once.status, 200, 'given once, the token is read as before');
});
