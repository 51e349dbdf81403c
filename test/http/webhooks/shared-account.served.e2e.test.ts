/**
 * An agent's own action through the shared cloud account, on a real `svc serve`: cloud tracker-a and wiki
 * payloads (the relay's `avi:jira:*` / `avi:confluence:*`, the wiki cloud's `/webhooks/wiki/{event}`) name
 * their sender by account id only, so the node learns the shared account's id from the vendor's "who am I"
 * (tracker-a `myself`, wiki `user/current`) and drops events that id caused, as it drops those the
 * account's e-mail caused. Another account's events still route. A new credential is asked again; a vendor
 * that cannot be reached leaves routing as it was (e-mail only), logged by integration, never blocking.
 */
import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import type { LogLine } from '../../harness/child.js';
import { startNode, TOKEN, type ServedNode } from '../../harness/serve-node.js';
import { closedPort, fakeCloudSites, type CloudAccount } from '../fixtures/fake-vendors.js';
import { relayAuth, relayJwksUrl } from './fixtures/served-relay.js';
import { relayIssuer } from './fixtures/signers.js';

const issuer = relayIssuer('k1');
const WIKI_TOKEN = 'wiki-cloud-token-0123456789';
const SHARED_EMAIL = 'svc-bot@example.com';
const basic = (email: string, token: string): string =>
  `Basic ${Buffer.from(`${email}:${token}`).toString('base64')}`;

const company = (trackerToken: string) => ({
  name: 'Acme',
  integrations: {
    tracker_a: { cloud_id: 'site-1', token: trackerToken, email: SHARED_EMAIL, webhook_secret: 'ta-secret-0123456789' },
    wiki: { cloud_id: 'site-1', token: 'wiki-api-token-1', email: SHARED_EMAIL },
    relay_app_id: 'relay-app-1',
  },
  roles: [{ name: 'Bob', handle: 'bob', kind: 'human', email: 'bob@example.com', contact: { tracker_a_account_id: 'acc-bob' } }],
  units: [
    { name: 'Eng', type: 'team', lead: 'ada', integrations: { wiki: { space: 'ENG' } }, roles: [{ name: 'Ada', handle: 'ada' }, { name: 'Cy', handle: 'cy', email: 'cy@example.com' }] },
  ],
}); // prettier-ignore

async function served(t: Test, gateway: string): Promise<ServedNode> {
  return startNode(t, '', 'memory', {
    SVC_LOG_LEVEL: 'debug',
    SVC_RELAY_JWKS_URL: await relayJwksUrl(t, issuer),
    SVC_CLOUD_SITE_API_URL: gateway,
    SVC_WIKI_WEBHOOK_TOKEN: WIKI_TOKEN,
  });
}

async function apply(t: Test, node: ServedNode, document: unknown): Promise<void> {
  const applied = node.run.lines.filter((l) => l.msg === 'config applied').length;
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 's' },
    body: JSON.stringify(document),
  });
  t.equal(put.status, 201, 'the document is stored');
  await node.run.waitForLog(
    (l) =>
      l.msg === 'config applied' && node.run.lines.filter((x) => x.msg === 'config applied').length > applied,
  );
}

type Sent = { pipeline: 'tracker-a' | 'wiki'; deliveryId: string };

function senders(node: ServedNode) {
  const post = async (path: string, headers: Record<string, string>, body: string): Promise<void> => {
    const res = await fetch(`${node.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    const answer: unknown = await res.json();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
  };
  const relay = async (payload: Record<string, unknown>): Promise<string> => {
    const body = JSON.stringify(payload);
    await post('/webhooks/relay', relayAuth(issuer), body);
    return body;
  };
  let n = 0;
  return {
    /** A relay `avi:jira:updated:issue` by `actor`, assigned to cy. */
    jira: async (actor: string): Promise<Sent> => {
      n++;
      const body = await relay({ eventType: 'avi:jira:updated:issue', atlassianId: actor, issue: { id: `${100 + n}`, key: `ENG-${n}`, fields: { summary: 'x', assignee: { emailAddress: 'cy@example.com' } } } }); // prettier-ignore
      return {
        pipeline: 'tracker-a',
        deliveryId: `sha256:${createHash('sha256').update(body).digest('hex')}`,
      };
    },
    /** The same by the shared account's e-mail (a payload that shows it). */
    jiraByEmail: async (): Promise<Sent> => {
      n++;
      const body = await relay({ eventType: 'avi:jira:updated:issue', user: { emailAddress: SHARED_EMAIL }, issue: { id: `${100 + n}`, key: `ENG-${n}`, fields: { summary: 'x', assignee: { emailAddress: 'cy@example.com' } } } }); // prettier-ignore
      return {
        pipeline: 'tracker-a',
        deliveryId: `sha256:${createHash('sha256').update(body).digest('hex')}`,
      };
    },
    /** A relay `avi:confluence:updated:page` by `actor` in ENG (led by ada). */
    confluence: async (actor: string): Promise<Sent> => {
      n++;
      await relay({ eventType: 'avi:confluence:updated:page', timestamp: n, atlassianId: actor, content: { id: `${200 + n}`, type: 'page', title: 'P', space: { key: 'ENG' } } }); // prettier-ignore
      return { pipeline: 'wiki', deliveryId: `${n}:${200 + n}:avi:confluence:updated:page` };
    },
    /** A wiki cloud `page_updated` by `actor` in ENG. */
    wikiCloud: async (actor: string): Promise<Sent> => {
      n++;
      const payload = {
        timestamp: n,
        userAccountId: actor,
        page: { id: 300 + n, title: 'P', spaceKey: 'ENG' },
      };
      await post('/webhooks/wiki/page_updated', { 'x-service-token': WIKI_TOKEN }, JSON.stringify(payload));
      return { pipeline: 'wiki', deliveryId: `${n}:${300 + n}:page_updated` };
    },
  };
}

/** What routing made of a delivery: its own-action drop, or its routing decision. */
async function outcome(node: ServedNode, sent: Sent): Promise<LogLine> {
  const notification = `${sent.pipeline}:${sent.deliveryId}`;
  return node.run.waitForLog(
    (l) =>
      (l['event'] === 'webhook_own_action_dropped' &&
        l['pipeline'] === sent.pipeline &&
        l['delivery_id'] === sent.deliveryId) ||
      ((l['event'] === 'notification_routed' || l['event'] === 'notification_dropped') &&
        l['notification'] === notification),
    15_000,
  );
}

t.test('events the shared cloud account caused are dropped by its account id', async (t) => {
  const accounts = new Map<string, CloudAccount>([
    [basic(SHARED_EMAIL, 'ta-api-token-1'), { accountId: 'acc-svc', email: SHARED_EMAIL }],
    [basic(SHARED_EMAIL, 'wiki-api-token-1'), { accountId: 'acc-svc', email: SHARED_EMAIL }],
    [basic(SHARED_EMAIL, 'ta-api-token-2'), { accountId: 'acc-svc-2', email: SHARED_EMAIL }],
  ]);
  const gateway = await fakeCloudSites(t, accounts);
  const node = await served(t, gateway.url);
  await apply(t, node, company('ta-api-token-1'));
  const send = senders(node);

  for (const [name, by] of [
    ['tracker-a through the relay', send.jira],
    ['wiki through the relay', send.confluence],
    ['wiki cloud', send.wikiCloud],
  ] as const)
    await t.test(name, async (t) => {
      t.match(
        await outcome(node, await by('acc-svc')),
        { event: 'webhook_own_action_dropped' },
        'own: dropped',
      );
      t.match(
        await outcome(node, await by('acc-bob')),
        { event: 'notification_routed', recipients: [name.startsWith('tracker-a') ? 'cy' : 'ada'] },
        "another account's event still routes",
      );
    });
  // The skills sync reads the wiki through the same gateway: only the "who am I" calls count here.
  const whoAmI = gateway.seen.filter((s) => /\/(myself|user\/current)$/.test(s.path));
  const asked = whoAmI.map((s) => `${s.path} ${String(s.headers['authorization'])}`);
  t.same(
    [...new Set(asked)].sort(),
    [
      `/ex/confluence/site-1/wiki/rest/api/user/current ${basic(SHARED_EMAIL, 'wiki-api-token-1')}`,
      `/ex/jira/site-1/rest/api/2/myself ${basic(SHARED_EMAIL, 'ta-api-token-1')}`,
    ],
    "each integration's account is asked with its own credential",
  );
  t.equal(whoAmI.length, 2, 'once each: the answer is kept');

  await t.test('a new credential is asked again: its account is the shared one from then on', async (t) => {
    await apply(t, node, company('ta-api-token-2'));
    t.match(await outcome(node, await send.jira('acc-svc-2')), { event: 'webhook_own_action_dropped' });
    t.match(await outcome(node, await send.jira('acc-svc')), {
      event: 'notification_routed',
      recipients: ['cy'],
    });
  });
});

t.test(
  'a vendor that cannot be reached: deliveries still route, the node says which integration',
  async (t) => {
    const node = await served(t, `http://127.0.0.1:${await closedPort()}`);
    await apply(t, node, company('ta-api-token-1'));
    const send = senders(node);
    t.match(await outcome(node, await send.jira('acc-svc')), {
      event: 'notification_routed',
      recipients: ['cy'],
    });
    t.match(await outcome(node, await send.wikiCloud('acc-svc')), {
      event: 'notification_routed',
      recipients: ['ada'],
    });
    for (const integration of ['tracker-a', 'wiki']) {
      const line = await node.run.waitForLog(
        (l) => l['event'] === 'shared_account_unresolved' && l['integration'] === integration,
      );
      t.match(line, { level: 40, reason: /unreachable/ }, `${integration}: a warning in our words`);
      const text = JSON.stringify(line);
      t.notOk(text.includes('api-token') || text.includes('Basic'), 'no credential in the line');
    }
    t.notOk(
      node.run.lines.some((l) => l['event'] === 'webhook_own_action_dropped'),
      'nothing was taken for an own action',
    );
    t.match(
      await outcome(node, await send.jiraByEmail()),
      { event: 'webhook_own_action_dropped' },
      "the shared account's e-mail still tells its own actions",
    );
  },
);
