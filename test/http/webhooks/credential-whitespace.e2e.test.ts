/**
 * A receiver's credential written with outer whitespace (an env file, `echo` into a secret) is used
 * without it instead of refusing every delivery: the shared tokens with no document field
 * (`SVC_MONITOR_WEBHOOK_TOKEN`, `SVC_WIKI_WEBHOOK_TOKEN`) are compared with a header value, which never
 * carries any, and no vendor signs with a secret that has any.
 */
import t from 'tap';
import { startNode, TOKEN } from '../../harness/serve-node.js';
import { sign_ } from './fixtures/signers.js';

const MONITOR = 'monitor-token-0123456789abcdefghij';
const WIKI = 'wiki-token-0123456789abcdefghij';
const TRACKER_A = 'tracker-a-secret-0123456789';

t.test('a receiver credential stored with a trailing newline accepts deliveries made with it', async (t) => {
  const node = await startNode(t, '', 'memory', {
    SVC_MONITOR_WEBHOOK_TOKEN: `${MONITOR}\n`,
    SVC_WIKI_WEBHOOK_TOKEN: ` ${WIKI}\r\n`,
    TRACKER_A_SECRET: `${TRACKER_A}\n`,
  });
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'first' },
    body: JSON.stringify({
      name: 'Acme',
      integrations: {
        wiki: { url: 'https://wiki.example.test' },
        tracker_a: { url: 'https://tracker-a.example.test', webhook_secret: '${TRACKER_A_SECRET}' },
      },
      roles: [{ name: 'Ada' }],
    }),
  });
  t.equal(put.status, 201, await put.clone().text());
  await node.run.waitForLog((line) => line.msg === 'config applied');

  const monitor = await fetch(`${node.url}/webhooks/monitor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': MONITOR },
    body: JSON.stringify({ status: 'firing', title: 'disk full' }),
  });
  t.equal(monitor.status, 200, await monitor.clone().text());
  t.match(await monitor.json(), { accepted: true });

  const wiki = await fetch(`${node.url}/webhooks/wiki/page_updated`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': WIKI },
    body: JSON.stringify({ event: 'page_updated', page: { id: 'p-1', title: 'Runbook' } }),
  });
  t.equal(wiki.status, 200, await wiki.clone().text());

  const body = JSON.stringify({
    webhookEvent: 'jira:issue_updated',
    issue: { id: '1000', key: 'ENG-1', fields: { summary: 'Item' } },
  });
  const trackerA = await fetch(`${node.url}/webhooks/tracker-a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...sign_.trackerA(TRACKER_A, body) },
    body,
  });
  t.equal(trackerA.status, 200, await trackerA.clone().text());
});
