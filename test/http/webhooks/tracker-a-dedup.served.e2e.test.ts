/**
 * Tracker-a dedup on a real `svc serve`. The relay's `avi:jira:*` events are keyed on what names the event
 * itself — the issue, the event type and the event's own time or change (`timestamp`, the changelog's id, a
 * comment's id and time, a created issue's creation time) — so the same event resent in another envelope (a
 * retry's added `retryContext`, a new context token) is answered `duplicate: true` and wakes nobody twice,
 * while two changes to one issue are two events. A body naming none of these keys on its digest. Self-hosted
 * deliveries key on the vendor's identifier header, else the body digest: a self-hosted retry resends the
 * same bytes.
 */
import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import type { LogLine } from '../../harness/child.js';
import { startNode } from '../../harness/serve-node.js';
import { fakeCloudSites, type CloudAccount } from '../fixtures/fake-vendors.js';
import { poster, putApplied, relayAuth, relayJwksUrl } from './fixtures/served-relay.js';
import { relayIssuer, sign_ } from './fixtures/signers.js';

const issuer = relayIssuer('k1');
const SECRET = 'ta-secret-0123456789';
const SHARED_EMAIL = 'svc-bot@example.com';
const AUTH = `Basic ${Buffer.from(`${SHARED_EMAIL}:ta-api-token-1`).toString('base64')}`;

const company = {
  name: 'Acme',
  integrations: {
    tracker_a: { cloud_id: 'site-1', token: 'ta-api-token-1', email: SHARED_EMAIL, webhook_secret: SECRET },
    relay_app_id: 'relay-app-1',
  },
  roles: [{ name: 'Bob', handle: 'bob', kind: 'human', email: 'bob@example.com', contact: { tracker_a_account_id: 'acc-bob' } }],
  units: [{ name: 'Eng', type: 'team', lead: 'ada', roles: [{ name: 'Ada', handle: 'ada' }, { name: 'Cy', handle: 'cy', email: 'cy@example.com' }] }],
}; // prettier-ignore

const issue = { id: '10073', key: 'ENG-7', self: 'https://site-1.example/rest/api/2/issue/10073', fields: { summary: 'Flaky deploy', created: '2026-01-02T03:04:05.678+0000', updated: '2026-01-02T04:00:00.000+0000', assignee: { accountId: 'acc-cy', emailAddress: 'cy@example.com' } } }; // prettier-ignore
/** What the relay adds when it delivers an event again. */
const retried = (event: Record<string, unknown>) => ({
  ...event,
  contextToken: 'another-context-token',
  retryContext: { retryCount: 1, retryReason: 'FUNCTION_ERROR' },
});

t.test('tracker-a dedup on a served node, through the relay and self-hosted', async (t) => {
  const accounts = new Map<string, CloudAccount>([[AUTH, { accountId: 'acc-svc', email: SHARED_EMAIL }]]);
  const gateway = await fakeCloudSites(t, accounts);
  const node = await startNode(t, '', 'memory', {
    SVC_LOG_LEVEL: 'debug',
    SVC_RELAY_JWKS_URL: await relayJwksUrl(t, issuer),
    SVC_CLOUD_SITE_API_URL: gateway.url,
  });
  await putApplied(t, node, company, 'ta');

  const post = poster(node);
  const relay = (payload: unknown) => post('/webhooks/relay', relayAuth(issuer), JSON.stringify(payload));
  const selfHosted = (body: string, id?: string) => {
    const headers = sign_.trackerA(SECRET, body, id ?? 'unused');
    if (id === undefined) delete headers['x-tracker-a-webhook-identifier'];
    return post('/webhooks/tracker-a', headers, body);
  };
  const isRouting = (l: LogLine, key: string) =>
    (l['event'] === 'notification_routed' || l['event'] === 'notification_dropped') &&
    l['notification'] === `tracker-a:${key}`;
  /** A new delivery is accepted under `key` and routed to cy. */
  const routesOnce = async (t: Test, send: ReturnType<typeof post>, key: string): Promise<void> => {
    const from = node.run.lines.length;
    t.same(await send, { status: 200, json: { accepted: true, duplicate: false } }, 'a new delivery');
    const line = await node.run.waitForLog(
      (l) => l['event'] === 'webhook_accepted' && node.run.lines.indexOf(l) >= from,
      10_000,
    );
    t.equal(line['delivery_id'], key, 'its dedup key');
    const id = String(line['delivery_id']);
    t.match(await node.run.waitForLog((l) => isRouting(l, id), 10_000), {
      event: 'notification_routed',
      recipients: ['cy'],
    });
  };
  const routings = (key: string) => node.run.lines.filter((l) => isRouting(l, key)).length;
  const duplicate = { status: 200, json: { accepted: true, duplicate: true } };

  await t.test('a relay issue change resent in another envelope is a duplicate', async (t) => {
    const change = { eventType: 'avi:jira:updated:issue', atlassianId: 'acc-bob', issue, changelog: { id: '20001', items: [{ field: 'status', fromString: 'To Do', toString: 'In Progress' }] } }; // prettier-ignore
    const key = '10073:avi:jira:updated:issue:changelog:20001';
    await routesOnce(t, relay(change), key);
    t.same(await relay(retried(change)), duplicate, 'the retry is the same event');

    // Another change to the same issue is another event; once it has routed, the retry (earlier on the
    // same stream) would have too.
    const next = { ...change, changelog: { id: '20002', items: [{ field: 'priority', fromString: 'Low', toString: 'High' }] } }; // prettier-ignore
    await routesOnce(t, relay(next), '10073:avi:jira:updated:issue:changelog:20002');
    t.equal(routings(key), 1, 'the first change woke its seats once');
  });

  await t.test('a relay comment resent is a duplicate; another comment on the issue routes', async (t) => {
    const comment = (id: string, at: string) => ({ eventType: 'avi:jira:commented:issue', atlassianId: 'acc-bob', issue, comment: { id, body: 'ping', created: at, updated: at, author: { accountId: 'acc-bob' } } }); // prettier-ignore
    const first = comment('30001', '2026-01-02T05:00:00.000+0000');
    const key = '10073:avi:jira:commented:issue:comment:30001@2026-01-02T05:00:00.000+0000';
    await routesOnce(t, relay(first), key);
    t.same(await relay(retried(first)), duplicate);
    const second = comment('30002', '2026-01-02T05:01:00.000+0000');
    await routesOnce(t, relay(second), '10073:avi:jira:commented:issue:comment:30002@2026-01-02T05:01:00.000+0000'); // prettier-ignore
    t.equal(routings(key), 1);
  });

  await t.test(
    'a relay event with its own timestamp keys on it; a created issue on its creation',
    async (t) => {
      const stamped = { eventType: 'avi:jira:assigned:issue', timestamp: 1767330000123, atlassianId: 'acc-bob', issue }; // prettier-ignore
      await routesOnce(t, relay(stamped), '10073:avi:jira:assigned:issue:1767330000123');
      t.same(await relay(retried(stamped)), duplicate);
      const created = { eventType: 'avi:jira:created:issue', atlassianId: 'acc-bob', issue };
      await routesOnce(
        t,
        relay(created),
        '10073:avi:jira:created:issue:created:2026-01-02T03:04:05.678+0000',
      );
      t.same(await relay(retried(created)), duplicate);
    },
  );

  await t.test('a relay event naming none of these keys on its body digest', async (t) => {
    const bare = { eventType: 'avi:jira:viewed:issue', atlassianId: 'acc-bob', issue: { id: '10080', key: 'ENG-8', fields: { summary: 'v', assignee: { emailAddress: 'cy@example.com' } } } }; // prettier-ignore
    const body = JSON.stringify(bare);
    await routesOnce(t, relay(bare), `sha256:${createHash('sha256').update(body).digest('hex')}`);
    t.same(await relay(bare), duplicate, 'the same bytes again');
  });

  await t.test('self-hosted: the identifier header, else the body digest', async (t) => {
    const payload = (ts: number) => JSON.stringify({ webhookEvent: 'jira:issue_updated', timestamp: ts, user: { accountId: 'acc-bob' }, issue }); // prettier-ignore
    await routesOnce(t, selfHosted(payload(1), 'wh-41'), 'wh-41');
    t.same(await selfHosted(payload(1), 'wh-41'), duplicate, 'a retry carries the same identifier');
    const body = payload(2);
    await routesOnce(t, selfHosted(body), `sha256:${createHash('sha256').update(body).digest('hex')}`);
    t.same(await selfHosted(body), duplicate, 'a retry without one resends the same bytes');
    await routesOnce(t, selfHosted(payload(3)), `sha256:${createHash('sha256').update(payload(3)).digest('hex')}`); // prettier-ignore
  });
});
