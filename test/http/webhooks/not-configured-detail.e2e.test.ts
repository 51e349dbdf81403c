/**
 * A receiver's 503 names what is actually missing. A block switched off (`enabled: false`) or absent says
 * so; it does not claim that a secret the document does hold is unset, which would send the operator
 * looking for a credential that is already there.
 */
import t from 'tap';
import { Streams } from '../../../bus/index.js';
import { webhookSettingsFrom } from '../../../http/index.js';
import { Company } from '../../../schema/index.js';
import { companyDocument, SECRETS } from './fixtures/company.js';
import { jwksServer } from './fixtures/jwks-server.js';
import { relayIssuer, sign_ } from './fixtures/signers.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

t.test('a switched-off or absent integration answers 503 naming the block, not its secret', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const doc = companyDocument();
  const integrations = doc.integrations ?? {};
  const off = Company.parse({
    ...doc,
    integrations: {
      chat: {},
      codehost_b: { ...integrations.codehost_b, enabled: false },
      tracker_b: { ...integrations.tracker_b, enabled: false },
    },
  });
  node.settings = webhookSettingsFrom('rev-off', off, {
    monitorToken: SECRETS.monitorToken,
    wikiToken: SECRETS.wikiToken,
    relayKeySetUrl: null,
  });
  const body = JSON.stringify({ object_kind: 'issue' });
  const cases: Array<[string, Record<string, string>, RegExp, RegExp]> = [
    [
      '/webhooks/codehost-b',
      sign_.codehostB(SECRETS.codehostB, body),
      /integrations\.codehost_b is unset or switched off \(enabled: false\)/,
      /signing_secret/,
    ],
    [
      '/webhooks/tracker-b',
      sign_.trackerB(SECRETS.trackerB, body),
      /integrations\.tracker_b is unset or switched off \(enabled: false\)/,
      /webhook_secret/,
    ],
    ['/webhooks/wiki', sign_.wiki(SECRETS.wiki, body), /integrations\.wiki is unset/, /webhook_secret/],
    [
      '/webhooks/wiki/page_created',
      { 'x-service-token': SECRETS.wikiToken },
      /integrations\.wiki is unset/,
      /SVC_WIKI_WEBHOOK_TOKEN/,
    ],
    [
      '/webhooks/tracker-a',
      sign_.trackerA(SECRETS.trackerA, body),
      /integrations\.tracker_a is unset/,
      /webhook_secret/,
    ],
    [
      '/webhooks/codehost-a',
      sign_.codehostA(SECRETS.codehostA, body),
      /integrations\.codehost_a is unset/,
      /webhook_secret/,
    ],
  ];
  for (const [path, headers, names, notClaimed] of cases) {
    const res = await node.post(path, body, headers);
    t.equal(res.status, 503, `${path}: ${res.text}`);
    t.equal(res.headers.get('retry-after'), '30', `${path}: Retry-After`);
    const detail = String(res.json?.['detail']);
    t.match(detail, names, `${path}: names the block`);
    t.notMatch(detail, notClaimed, `${path}: does not claim a secret is unset`);
  }
});

t.test('a block that is on but lacks its secret still names the secret', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const doc = companyDocument();
  const integrations = doc.integrations ?? {};
  const noSecret = Company.parse({
    ...doc,
    integrations: {
      ...integrations,
      codehost_b: { ...integrations.codehost_b, signing_secret: '' },
    },
  });
  node.settings = webhookSettingsFrom('rev-2', noSecret, {
    monitorToken: null,
    wikiToken: null,
    relayKeySetUrl: null,
  });
  const body = JSON.stringify({ object_kind: 'issue' });
  const b = await node.post('/webhooks/codehost-b', body, sign_.codehostB(SECRETS.codehostB, body));
  t.equal(b.status, 503);
  t.match(b.json?.['detail'], /integrations\.codehost_b\.signing_secret is unset/);
  const w = await node.post('/webhooks/wiki/page_created', body, { 'x-service-token': SECRETS.wikiToken });
  t.equal(w.status, 503);
  t.match(w.json?.['detail'], /SVC_WIKI_WEBHOOK_TOKEN\) is unset/);
});

t.test(
  'a relay event of an absent tracker-a or wiki block answers 503 naming the block, keeps nothing, wakes nobody',
  async (t) => {
    const issuer = relayIssuer('k1');
    const jwks = await jwksServer(() => issuer.jwks);
    t.teardown(() => jwks.close());
    const node = await startWebhookNode({ relayJwksUrl: jwks.url });
    t.teardown(() => node.close());
    const full = node.settings;
    // The relay stays configured (its app id and key set); the vendors whose cloud events it carries are not.
    node.settings = webhookSettingsFrom(
      'rev-relay-only',
      Company.parse({ ...companyDocument(), integrations: { relay_app_id: 'relay-app-1' } }),
      { monitorToken: null, wikiToken: null, relayKeySetUrl: jwks.url },
    );
    const s = Math.floor(Date.now() / 1000);
    const headers = { authorization: `Bearer ${issuer.token({ aud: 'relay-app-1', iat: s, exp: s + 60 })}` };
    const jira = JSON.stringify({
      eventType: 'avi:jira:updated:issue',
      issue: { id: '1', key: 'R-1', fields: { assignee: { emailAddress: 'cy@example.com' } } },
    });
    const page = JSON.stringify({ eventType: 'avi:confluence:created:page', timestamp: 1, page: { id: 7 } });
    for (const [body, block] of [
      [jira, /integrations\.tracker_a is unset/],
      [page, /integrations\.wiki is unset/],
    ] as const) {
      const res = await node.post('/webhooks/relay', body, headers);
      t.equal(res.status, 503, res.text);
      t.equal(res.headers.get('retry-after'), '30');
      t.notOk(res.json?.['error'], 'codeless, as every receiver switched off');
      t.match(String(res.json?.['detail']), block);
    }
    const kept = [...(await node.messages(Streams.Webhooks)), ...(await node.messages(Streams.WebhooksWiki))];
    t.equal(kept.length, 0, 'nothing is kept');
    t.equal(node.allInbox().length, 0, 'nobody is woken');

    // With the blocks back the same delivery is taken: it was the block, not the token.
    node.settings = full;
    const res = await node.post('/webhooks/relay', jira, headers);
    t.same(res.json, { accepted: true, duplicate: false });
    const { handle } = await node.inbox(() => true);
    t.equal(handle, 'cy');
  },
);
