/**
 * The raw-delivery store and the edges around it: `svc replay` shows deliveries with the names of their
 * signature headers and no credential; dedup survives a restart of the store; chat challenges are answered
 * even before a revision is active; the relay key set is fetched again for an unknown `kid`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import t from 'tap';
import { catalogueStreams, ensureCatalogue, Streams, Subjects, WIKI_DEDUP_MS } from '../../../bus/index.js';
import { openMemoryBus } from '../../../bus/memory/index.js';
import { relayKeySet } from '../../../http/index.js';
import { replayStream } from '../../../scripts/replay.js';
import { SECRETS } from './fixtures/company.js';
import { jwksServer } from './fixtures/jwks-server.js';
import { relayIssuer, sign_ } from './fixtures/signers.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

t.test('svc replay shows a raw delivery with its signature header names and no credential', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const body = JSON.stringify({ status: 'firing', commonLabels: { alertname: 'A', seat: 'cy' } });
  t.equal(
    (
      await node.post('/webhooks/monitor', body, {
        'x-service-token': SECRETS.monitorToken,
        'x-request-id': 'r1',
      })
    ).status,
    200,
  );
  const cb = JSON.stringify({ action: 'opened', sender: { login: 'bob-gh' }, issue: { number: 1 } });
  t.equal(
    (await node.post('/webhooks/codehost-a', cb, sign_.codehostA(SECRETS.codehostA, cb, 'gh-9'))).status,
    200,
  );
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  const result = await replayStream(node.bus, { stream: Streams.Webhooks, verify: true }, out);
  t.equal(result.count, 2);
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { headers?: Record<string, string>; data?: string });
  const [monitor, codehost] = lines;
  t.equal(monitor?.headers?.['svc-signature-headers'], '["x-service-token"]');
  t.equal(JSON.parse(monitor?.headers?.['svc-vendor-headers'] ?? '{}')['x-request-id'], 'r1');
  t.equal(monitor?.data, body, 'the body exactly as received');
  t.equal(codehost?.headers?.['svc-delivery-id'], 'gh-9');
  t.equal(codehost?.headers?.['svc-signature-headers'], '["x-codehost-a-signature-256"]');
  for (const secret of Object.values(SECRETS)) t.notOk(text.includes(secret));
  t.notOk(text.includes('sha256='), 'signature values are not stored either');
});

t.test('a delivery id is remembered across a restart of the store; wiki keys for five minutes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dedup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const data = new TextEncoder().encode('{}');
  const first = await openMemoryBus({ storeDir: dir });
  await ensureCatalogue(first);
  t.equal(
    (await first.publish(Subjects.webhookDelivery('tracker-b'), data, { msgId: 'tracker-b:d-1' })).duplicate,
    false,
  );
  await first.close();
  const second = await openMemoryBus({ storeDir: dir });
  t.teardown(() => second.close());
  await ensureCatalogue(second);
  t.equal(
    (await second.publish(Subjects.webhookDelivery('tracker-b'), data, { msgId: 'tracker-b:d-1' })).duplicate,
    true,
  );
  const wiki = catalogueStreams().find((s) => s.name === Streams.WebhooksWiki);
  t.equal(wiki?.duplicateWindowMs, WIKI_DEDUP_MS);
  t.equal(WIKI_DEDUP_MS, 5 * 60 * 1000);
});

t.test('a wiki key is a duplicate for five minutes through the receiver, other ids for longer', async (t) => {
  let clock = Date.now();
  const node = await startWebhookNode({ bus: await openMemoryBus({ clock: () => clock }) });
  t.teardown(() => node.close());
  const wiki = JSON.stringify({
    webhookEvent: 'page_updated',
    timestamp: 1,
    page: { id: 42, spaceKey: 'ENG' },
  });
  const tb = '{"event":"issue"}';
  const send = async () => [
    (await node.post('/webhooks/wiki', wiki, sign_.wiki(SECRETS.wiki, wiki))).json,
    (await node.post('/webhooks/tracker-b', tb, sign_.trackerB(SECRETS.trackerB, tb, 'tb-ttl'))).json,
  ];
  const fresh = { accepted: true, duplicate: false };
  const seen = { accepted: true, duplicate: true };
  t.same(await send(), [fresh, fresh], 'first delivery of each');
  clock += WIKI_DEDUP_MS - 1000;
  t.same(await send(), [seen, seen], 'inside five minutes: both duplicates');
  clock += 2000;
  t.same(await send(), [fresh, seen], 'past five minutes: the wiki key is new again, a delivery id is not');
});

t.test(
  'a chat URL-verification challenge is answered unconditionally, other events wait for a revision',
  async (t) => {
    const node = await startWebhookNode({ configured: false });
    t.teardown(() => node.close());
    const challenge = await node.post(
      '/webhooks/chat/nobody',
      JSON.stringify({ type: 'url_verification', challenge: 'c-123' }),
    );
    t.equal(challenge.status, 200);
    t.same(challenge.json, { challenge: 'c-123' });
    const body = JSON.stringify({ type: 'event_callback', event_id: 'E1', event: { type: 'message' } });
    const event = await node.post('/webhooks/chat/ada', body, sign_.chat(SECRETS.chatAda, body));
    t.equal(event.status, 503);
    t.equal(event.headers.get('retry-after'), '30');
    const other = await node.post('/webhooks/tracker-b', '{}', sign_.trackerB(SECRETS.trackerB, '{}'));
    t.equal(other.status, 503, 'an unconfigured node answers 503 to deliveries');
    // One answer for the unconfigured node, whichever receiver is asked: no secret is missing yet.
    t.same(event.json, other.json, 'chat words it as every other receiver does');
    t.match(event.json?.['hint'], /first revision/);
  },
);

t.test('an event name outside the wiki grammar is 404 no_route, the name cut to 80 characters', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const body = JSON.stringify({ timestamp: 1, page: { id: 1, spaceKey: 'ENG' } });
  const token = { 'x-service-token': SECRETS.wikiToken };
  const long = 'page_created'.padEnd(3000, 'x');
  for (const name of [long, 'page%0Aevil', 'page%20created', '%F0%9F%98%80', 'p'.repeat(65)]) {
    const res = await node.post(`/webhooks/wiki/${name}`, body, token);
    t.equal(res.status, 404, name.slice(0, 20));
    t.equal(res.json?.['error'], 'no_route');
    t.ok(res.text.length < 1000, 'the detail does not carry the whole name');
  }
  const res = await node.post(`/webhooks/wiki/${long}`, body, token);
  t.match(res.json?.['detail'], long.slice(0, 80));
  t.notMatch(res.json?.['detail'], long.slice(0, 81));
  for (const name of ['page_created', 'comment_updated', 'blog.trashed', 'avi:confluence:created:page']) {
    const ok = await node.post(
      `/webhooks/wiki/${name}`,
      body.replace('"timestamp":1', `"timestamp":"${name}"`),
      token,
    );
    t.equal(ok.status, 200, name);
  }
  t.equal((await node.messages(Streams.WebhooksWiki)).length, 4, 'only the names in the grammar are kept');
});

t.test('a per-seat handle no seat could have is 404 no_route, the handle cut to 80 characters', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const body = JSON.stringify({ action: 'opened', issue: { number: 1 } });
  const long = 'a'.repeat(3000);
  const malformed = [long, 'Ada', 'ada%0Aevil', 'ada_b', '-ada', '%F0%9F%98%80', 'a'.repeat(65)];
  for (const route of ['codehost-a', 'chat']) {
    for (const handle of malformed) {
      const res = await node.post(`/webhooks/${route}/${handle}`, body, { 'x-codehost-a-event': 'issues' });
      t.equal(res.status, 404, `${route}/${handle.slice(0, 20)}`);
      t.equal(res.json?.['error'], 'no_route');
      t.ok(res.text.length < 1000, 'the detail does not carry the whole handle');
    }
    const res = await node.post(`/webhooks/${route}/${long}`, body);
    t.match(res.json, { detail: long.slice(0, 80), hint: /seat handle/ });
    t.notMatch(res.json?.['detail'], long.slice(0, 81));
  }
  const challenge = JSON.stringify({ type: 'url_verification', challenge: 'c-1' });
  t.equal((await node.post(`/webhooks/chat/${long}`, challenge)).status, 404, 'no challenge answered there');
  const logged = node.h.logs.filter((l) => l['event'] === 'webhook_unknown_seat');
  t.equal(logged.length, 2 * (malformed.length + 1) + 1, 'each logged as webhook_unknown_seat');
  t.ok(
    logged.every((l) => String(l['handle']).length <= 81),
    'the log quotes the handle cut',
  );
  const counted = node.h.logs.filter((l) => /webhook_(refused|not_configured)/.test(String(l['event'])));
  t.equal(counted.length, 0, 'refused before the credential: nothing counted under codehost-a/*');
  // A well-formed handle of no seat keeps its answer: no secret (503, counted under codehost-a/*) and
  // chat's 404 not_found; the seat's own handle is served.
  t.equal((await node.post('/webhooks/codehost-a/nobody', body)).status, 503);
  t.match((await node.post('/webhooks/chat/nobody', body)).json, { error: 'not_found' });
  const signed = sign_.codehostA(SECRETS.codehostAAda, body, 'gh-ada-1');
  t.equal((await node.post('/webhooks/codehost-a/ada', body, signed)).status, 200);
});

t.test(
  'the relay key set is cached, and fetched again when asked to refresh, no faster than its floor',
  async (t) => {
    const a = relayIssuer('k1');
    const b = relayIssuer('k2');
    let keys = a.jwks.keys;
    const server = await jwksServer(() => ({ keys }));
    t.teardown(() => server.close());
    const set = relayKeySet(server.url, { minRefreshMs: 0 });
    t.ok(await set.key('k1'));
    t.ok(await set.key('k1'));
    t.equal(server.fetches(), 1, 'a known kid is served from the cache');
    keys = [...a.jwks.keys, ...b.jwks.keys];
    t.equal(
      await set.key('k2'),
      null,
      'an unknown kid alone does not fetch (the verifier decides to refresh)',
    );
    t.equal(await set.refresh(), true);
    t.ok(await set.key('k2'), 'a rotated-in key is found once the set is fetched again');
    t.equal(server.fetches(), 2);
    t.equal(await set.key('k9'), null);
    const slow = relayKeySet(server.url, { minRefreshMs: 60_000 });
    await slow.key('k1');
    t.equal(await slow.refresh(), false);
    t.equal(await slow.refresh(), false);
    t.equal(server.fetches(), 3, 'refreshes cannot make the node refetch faster than its floor');
  },
);

t.test('vendor text with line breaks never reaches a stored header as is', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const body = JSON.stringify({
    event: 'page\nevil',
    timestamp: 'a\r\nb',
    page: { id: '1\n2', spaceKey: 'ENG' },
  });
  const res = await node.post('/webhooks/wiki/page_created', body, { 'x-service-token': SECRETS.wikiToken });
  t.equal(res.status, 200);
  const [stored] = await node.messages(Streams.WebhooksWiki);
  for (const value of Object.values(stored?.headers ?? {})) t.notMatch(value, /[\r\n]/);
  t.match(stored?.headers['svc-delivery-id'], /^sha256:/);
});
