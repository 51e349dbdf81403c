/**
 * Every receiver over a real listener with real signed requests: accepted and routed, a duplicate, a
 * wrong signature, stale and future timestamps, a missing secret, malformed JSON, an agent's own event,
 * an oversized body.
 */
import t, { type Test } from 'tap';
import { Streams } from '../../../bus/index.js';
import { deliveryKey, rawDeliveryMeta, type InboxMessage } from '../../../schema/index.js';
import { rawClient } from '../fixtures/gateway-harness.js';
import { jwksServer } from './fixtures/jwks-server.js';
import { relayIssuer } from './fixtures/signers.js';
import { vendorCases, type VendorCase } from './fixtures/vendors.js';
import { startWebhookNode, type WebhookNode } from './fixtures/webhook-node.js';
import { SECRETS } from './fixtures/company.js';

const MiB = 1024 * 1024;

/** Matches the inbox message carrying exactly this delivery body. */
const forBody =
  (body: string) =>
  (m: InboxMessage): boolean =>
    JSON.stringify((m.payload['notification'] as { payload?: unknown } | undefined)?.payload) ===
    JSON.stringify(JSON.parse(body));
const issuer = relayIssuer('k1');

/** The delivery keys of what the audit store holds. */
async function storedKeys(node: WebhookNode): Promise<string[]> {
  const all = [...(await node.messages(Streams.Webhooks)), ...(await node.messages(Streams.WebhooksWiki))];
  return all.map((m) => {
    const meta = rawDeliveryMeta(m.headers ?? {});
    return deliveryKey(meta.pipeline, meta.seat || null, meta.delivery_id);
  });
}

/** Waits for routing to decide a delivery: its `notification_routed` or `notification_dropped` line. */
function routingOf(node: WebhookNode, key: string): Promise<Record<string, unknown>> {
  return node.waitHostLog(
    (l) =>
      (l['event'] === 'notification_routed' || l['event'] === 'notification_dropped') &&
      l['notification'] === key,
  );
}

async function stored(node: WebhookNode): Promise<number> {
  return (await node.messages(Streams.Webhooks)).length + (await node.messages(Streams.WebhooksWiki)).length;
}

async function vendorTests(t: Test, v: VendorCase, node: WebhookNode): Promise<void> {
  let n = 0;
  const send = (
    body: string | Buffer,
    extra: { id?: string; nowS?: number; headers?: Record<string, string> } = {},
  ) =>
    node.post(v.path, body, {
      ...v.sign(body, {
        id: extra.id ?? `d-${v.name}-${++n}`,
        ...(extra.nowS !== undefined ? { nowS: extra.nowS } : {}),
      }),
      ...extra.headers,
    });

  await t.test('a signed delivery is stored, then routed to the seat it names', async (t) => {
    const body = v.body(1);
    const res = await send(body, { id: 'first' });
    t.equal(res.status, 200, res.text);
    t.same(res.json, { accepted: true, duplicate: false });
    const { message, handle } = await node.inbox(forBody(body));
    t.equal(handle, v.routesTo);
    t.match(message.source, /^webhook:/);
    const raw = [...(await node.messages(Streams.Webhooks)), ...(await node.messages(Streams.WebhooksWiki))];
    const text = JSON.stringify(raw.map((m) => m.headers));
    for (const secret of Object.values(SECRETS))
      t.notOk(text.includes(secret), 'no secret in stored headers');
    t.notOk(/Bearer /.test(text), 'no bearer token stored');
  });

  await t.test('the same delivery again is answered 2xx and creates nothing', async (t) => {
    const before = await stored(node);
    const inboxBefore = node.allInbox().length;
    const res = await send(v.body(1), { id: 'first' });
    t.equal(res.status, 200);
    t.same(res.json, { accepted: true, duplicate: true });
    t.equal(await stored(node), before);
    // A later delivery routes; the duplicate produced no inbox message before it.
    await send(v.body(2), { id: 'second' });
    await node.inbox(forBody(v.body(2)));
    t.equal(node.allInbox().length, inboxBefore + 1);
  });

  await t.test('a wrong signature is 401 invalid_token and nothing is stored', async (t) => {
    const before = await stored(node);
    const body = v.body(3);
    const headers = v.sign(body, { id: 'x' });
    for (const k of Object.keys(headers)) {
      if (/signature|token|authorization/.test(k)) {
        const value = headers[k]!;
        headers[k] = value.slice(0, -3) + (value.slice(-3) === 'AAA' ? 'BBB' : 'AAA');
      }
    }
    const res = await node.post(v.path, body, headers);
    t.equal(res.status, 401);
    t.equal(res.json?.error, 'invalid_token');
    t.equal(await stored(node), before);
  });

  if (v.timestamped)
    await t.test('an expired and a future timestamp are refused', async (t) => {
      const now = Math.floor(Date.now() / 1000);
      for (const skew of [-400, 400]) {
        const res = await send(v.body(4), { nowS: now + skew });
        t.equal(res.status, 401, `skew ${skew}`);
        t.equal(res.json?.error, 'invalid_token');
      }
    });

  await t.test('without its secret the route answers 503 with Retry-After and keeps nothing', async (t) => {
    const saved = node.settings;
    node.settings = v.unset(saved);
    t.teardown(() => void (node.settings = saved));
    const before = await stored(node);
    const res = await send(v.body(5));
    t.equal(res.status, 503);
    t.equal(res.headers.get('retry-after'), '30');
    t.notOk(res.json?.error, 'a codeless 503 (spec: no code)');
    t.equal(await stored(node), before);
  });

  await t.test('a signed body that is not JSON is 400 and never quoted back', async (t) => {
    const res = await send('{"not json <script>');
    t.equal(res.status, 400);
    t.equal(res.json?.error, 'invalid_body');
    t.match(res.json?.problems, [{ path: '', kind: 'shape' }], 'the problem is carried');
    t.notOk(res.text.includes('not json'));
  });

  // Routing must read a delivery as the receiver that accepted it did: only chat and codehost-a send forms
  // (their JSON in `payload`), and a media type is case-insensitive (RFC 9110 8.3.1).
  const sendsForms = v.name === 'chat' || v.name.startsWith('codehost-a');
  const formCase = sendsForms
    ? {
        label: 'a form whose media type is in capitals is read from its `payload` and routed',
        body: `payload=${encodeURIComponent(v.body(7))}`,
        contentType: 'Application/X-WWW-Form-URLEncoded; charset=utf-8',
      }
    : {
        label: 'a JSON delivery labelled as a form is routed from its JSON',
        body: v.body(7),
        contentType: 'application/x-www-form-urlencoded',
      };
  await t.test(formCase.label, async (t) => {
    const before = new Set(await storedKeys(node));
    const res = await send(formCase.body, { headers: { 'content-type': formCase.contentType } });
    t.equal(res.status, 200, res.text);
    const [key] = (await storedKeys(node)).filter((k) => !before.has(k));
    if (key === undefined) return void t.fail('stored');
    const decided = await routingOf(node, key);
    t.equal(decided['event'], 'notification_routed', `routed (${String(decided['reason'])})`);
    t.same(decided['recipients'], [v.routesTo]);
  });

  if (v.name.startsWith('codehost-a'))
    await t.test(
      'a signed form without a JSON `payload` is 400 invalid_body and nothing is stored',
      async (t) => {
        const before = await stored(node);
        const form = { 'content-type': 'application/x-www-form-urlencoded' };
        for (const body of ['action=opened', 'payload=%7Bnot%20json', v.body(8)]) {
          const res = await send(body, { headers: form });
          t.equal(res.status, 400, body.slice(0, 20));
          t.equal(res.json?.error, 'invalid_body');
          t.notOk(res.text.includes('not json'), 'never quoted');
        }
        t.equal(await stored(node), before);
      },
    );

  if (v.own !== undefined)
    await t.test("an agent's own event is acknowledged and dropped", async (t) => {
      const res = await send(v.own!, { id: 'own-1' });
      t.equal(res.status, 200);
      await node.waitHostLog((l) => l.event === 'webhook_own_action_dropped');
      const inboxBefore = node.allInbox().length;
      await send(v.body(6), { id: 'after-own' });
      await node.inbox(forBody(v.body(6)));
      t.equal(node.allInbox().length, inboxBefore + 1, 'only the later delivery reached an inbox');
    });

  await t.test('a body over 25 MiB is refused with 413 before it is read', async (t) => {
    const before = await stored(node);
    const c = await rawClient(node.h.gw.port);
    const headers = {
      ...v.sign('x', { id: 'big' }),
      'content-type': 'application/json',
      'content-length': String(25 * MiB + 1),
    };
    const head = [
      `POST ${v.path} HTTP/1.1`,
      'host: x',
      ...Object.entries(headers).map(([k, x]) => `${k}: ${x}`),
      '',
      '',
    ].join('\r\n');
    c.socket.write(head + 'a'.repeat(64 * 1024));
    const raw = await c.waitFor('"hint"');
    t.match(raw, /^HTTP\/1\.1 413 /);
    t.match(raw, /"error":"body_too_large"/);
    await c.closed;
    t.equal(await stored(node), before);
  });
}

t.test('every receiver', async (t) => {
  const jwks = await jwksServer(() => issuer.jwks);
  t.teardown(() => jwks.close());
  for (const v of vendorCases(issuer)) {
    await t.test(v.name, async (t) => {
      const node = await startWebhookNode({ relayJwksUrl: jwks.url });
      t.teardown(() => node.close());
      await vendorTests(t, v, node);
    });
  }
});

t.test('a monitor token under 26 characters counts as unset: the route answers 503', async (t) => {
  const node = await startWebhookNode({});
  t.teardown(() => node.close());
  const monitor = vendorCases(null).find((v) => v.name === 'monitor')!;
  const saved = node.settings;
  for (const [length, status] of [
    [25, 503],
    [26, 200],
  ] as const) {
    const token = 'm'.repeat(length);
    node.settings = { ...saved, monitor: { token } };
    const res = await node.post(monitor.path, monitor.body(length), {
      'content-type': 'application/json',
      'x-service-token': token,
    });
    t.equal(res.status, status, `${length} characters`);
  }
});
