/**
 * Wiki routing on a real `svc serve`, outside in: self-hosted deliveries and the relay's `avi:confluence:*`
 * events (the cloud wiki's own payload shape: `atlassianId`, `content`, a comment's page in
 * `content.container`, the creator in `content.history.createdBy`) take the same steps: page watchers
 * (a comment's @mentions become watchers), unit leads of the space, then the people the event names; the
 * trigger is excluded at every step, a list of only the trigger drops the event, human seats are skipped
 * quietly. A relay event outside the supported list is answered `{accepted: false, ignored: true}` and kept
 * nowhere.
 */
import { createHmac } from 'node:crypto';
import t, { type Test } from 'tap';
import type { LogLine } from '../../harness/child.js';
import { startNode } from '../../harness/serve-node.js';
import { poster, putApplied, relayAuth, relayJwksUrl } from './fixtures/served-relay.js';
import { relayIssuer } from './fixtures/signers.js';

const WIKI_SECRET = 'wiki-secret-0123456789';
const issuer = relayIssuer('k1');

const company = {
  name: 'Acme',
  integrations: {
    wiki: { url: 'https://wiki.example', webhook_secret: WIKI_SECRET, email: 'svc-bot@example.com' },
    relay_app_id: 'relay-app-1',
  },
  roles: [
    { name: 'Bob', handle: 'bob', kind: 'human', email: 'bob@example.com', contact: { tracker_a_account_id: 'acc-bob' } },
    { name: 'Dan', handle: 'dan', kind: 'human', contact: { tracker_a_account_id: 'acc-dan' } },
  ],
  units: [
    { name: 'Eng', type: 'team', lead: 'ada', integrations: { wiki: { space: 'ENG' } }, roles: [{ name: 'Ada', handle: 'ada' }, { name: 'Cy', handle: 'cy', email: 'cy@example.com' }] },
    { name: 'Docs', type: 'team', lead: 'bob', integrations: { wiki: { space: 'DOC' } }, roles: [{ name: 'Eve', handle: 'eve' }] },
  ],
}; // prettier-ignore

t.test('wiki routing on a served node, self-hosted and through the relay', async (t) => {
  const jwksUrl = await relayJwksUrl(t, issuer);
  const node = await startNode(t, '', 'memory', { SVC_LOG_LEVEL: 'debug', SVC_RELAY_JWKS_URL: jwksUrl });
  await putApplied(t, node, company, 'wiki');

  const post = poster(node);
  const selfHosted = (payload: unknown) => {
    const body = JSON.stringify(payload);
    const signature = `sha256=${createHmac('sha256', WIKI_SECRET).update(body).digest('hex')}`;
    return post('/webhooks/wiki', { 'x-hub-signature': signature }, body);
  };
  const relay = (payload: unknown) => post('/webhooks/relay', relayAuth(issuer), JSON.stringify(payload));
  /** The routing decision of a delivery accepted under `key` (its `notification_routed` or `_dropped` line). */
  const decision = async (
    t: Test,
    send: Promise<{ status: number; json: unknown }>,
    key: string,
  ): Promise<LogLine> => {
    const res = await send;
    t.same(res, { status: 200, json: { accepted: true, duplicate: false } }, key);
    const accepted = await node.run.waitForLog(
      (l) =>
        l['event'] === 'webhook_accepted' && String(l['delivery_id']).startsWith(key.split(':')[0] + ':'),
      10_000,
    );
    t.equal(accepted['delivery_id'], key, 'deduplicated on timestamp, page id and event type');
    return node.run.waitForLog(
      (l) =>
        (l['event'] === 'notification_routed' || l['event'] === 'notification_dropped') &&
        l['notification'] === `wiki:${key}`,
      10_000,
    );
  };

  // A comment's @mention makes cy a watcher of page 200 (in a space no unit leads).
  const mention = { webhookEvent: 'comment_created', timestamp: 10, userAccountId: 'acc-bob', comment: { body: 'see @cy', container: { id: 200, spaceKey: 'OPS' } } }; // prettier-ignore
  t.match(await decision(t, selfHosted(mention), '10:200:comment_created'), {
    step: 'watchers',
    recipients: ['cy'],
  });

  await t.test("a relay comment reaches the watchers of the comment's page", async (t) => {
    const comment = { eventType: 'avi:confluence:created:comment', timestamp: 11, atlassianId: 'acc-bob', content: { id: '900', type: 'comment', title: 'Re: P', space: { key: 'OPS' }, container: { id: '200', type: 'page', title: 'P' } } }; // prettier-ignore
    t.match(await decision(t, relay(comment), '11:200:avi:confluence:created:comment'), {
      event: 'notification_routed',
      step: 'watchers',
      recipients: ['cy'],
    });
  });

  await t.test('a relay page event names its creator, resolved by e-mail', async (t) => {
    const page = { eventType: 'avi:confluence:updated:page', timestamp: 12, atlassianId: 'acc-bob', content: { id: '300', type: 'page', title: 'Runbook', space: { key: 'OPS' }, history: { createdBy: { accountId: 'acc-cy', email: 'cy@example.com' } } } }; // prettier-ignore
    t.match(await decision(t, relay(page), '12:300:avi:confluence:updated:page'), {
      event: 'notification_routed',
      step: 'resolution',
      recipients: ['cy'],
    });
  });

  await t.test('a relay page event in a led space wakes the unit lead', async (t) => {
    const page = { eventType: 'avi:confluence:created:blogpost', timestamp: 13, atlassianId: 'acc-bob', content: { id: '301', type: 'blogpost', title: 'News', space: { key: 'ENG' } } }; // prettier-ignore
    t.match(await decision(t, relay(page), '13:301:avi:confluence:created:blogpost'), {
      step: 'leads',
      recipients: ['ada'],
    });
  });

  await t.test('a lead who is the trigger is the only candidate: the event is dropped', async (t) => {
    const page = { webhookEvent: 'page_updated', timestamp: 14, userAccountId: 'acc-bob', page: { id: 400, spaceKey: 'DOC' } }; // prettier-ignore
    t.match(await decision(t, selfHosted(page), '14:400:page_updated'), {
      event: 'notification_dropped',
      step: 'leads',
      reason: 'only_trigger',
    });
  });

  await t.test('a human lead is skipped quietly: nobody is woken', async (t) => {
    const page = { webhookEvent: 'page_updated', timestamp: 15, userAccountId: 'acc-dan', page: { id: 401, spaceKey: 'DOC' } }; // prettier-ignore
    t.match(await decision(t, selfHosted(page), '15:401:page_updated'), {
      event: 'notification_routed',
      step: 'leads',
      recipients: [],
    });
    const skipped = await node.run.waitForLog(
      (l) => l['event'] === 'notification_human_skipped' && l['notification'] === 'wiki:15:401:page_updated',
    );
    t.same(skipped['seats'], ['bob']);
  });

  await t.test('a relay wiki event sent again in another envelope is a duplicate', async (t) => {
    // The relay stamps an event with `eventCreatedDate`: the timestamp of the wiki key.
    const event = { eventType: 'avi:confluence:updated:page', eventCreatedDate: '2026-01-02T03:04:05.678Z', atlassianId: 'acc-bob', content: { id: '302', type: 'page', space: { key: 'ENG' } } }; // prettier-ignore
    t.same(await relay(event), { status: 200, json: { accepted: true, duplicate: false } });
    // The only other updated:page delivery of this test is 12:300.
    const accepted = await node.run.waitForLog(
      (l) =>
        l['event'] === 'webhook_accepted' &&
        l['vendor_event'] === 'avi:confluence:updated:page' &&
        l['delivery_id'] !== '12:300:avi:confluence:updated:page',
      10_000,
    );
    t.equal(accepted['delivery_id'], '2026-01-02T03:04:05.678Z:302:avi:confluence:updated:page');
    const retried = { ...event, retryContext: { retryCount: 1, retryReason: 'FUNCTION_ERROR' } };
    t.same(await relay(retried), { status: 200, json: { accepted: true, duplicate: true } });
  });

  await t.test(
    'a relay wiki event outside the supported list is acknowledged and kept nowhere',
    async (t) => {
      const before = node.run.lines.filter((l) => l['event'] === 'webhook_accepted').length;
      const liked = { eventType: 'avi:confluence:liked:page', timestamp: 16, atlassianId: 'acc-bob', content: { id: '200', type: 'page', space: { key: 'OPS' } } }; // prettier-ignore
      t.same(await relay(liked), { status: 200, json: { accepted: false, ignored: true } });
      await node.run.waitForLog((l) => l['event'] === 'relay_event_ignored');
      const next = { webhookEvent: 'page_updated', timestamp: 17, userAccountId: 'acc-bob', page: { id: 200, spaceKey: 'OPS' } }; // prettier-ignore
      await decision(t, selfHosted(next), '17:200:page_updated');
      const accepted = node.run.lines.filter((l) => l['event'] === 'webhook_accepted');
      t.equal(accepted.length, before + 1, 'only the later delivery was stored');
      t.notOk(
        node.run.lines.some(
          (l) => typeof l['notification'] === 'string' && l['notification'].startsWith('wiki:16:'),
        ),
        'the ignored event was routed to nobody',
      );
    },
  );
});
