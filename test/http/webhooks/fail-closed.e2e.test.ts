/**
 * Fail closed before the body is read: a receiver without its secret answers 503 and a delivery without
 * its credential header 401 while the sender is still uploading. Each request below declares a 20 MiB
 * body and sends only its first KiB, then waits: an answer at all proves the node did not wait for (or
 * read) the rest. The connection is closed behind it, and nothing reaches the audit store.
 */
import { once } from 'node:events';
import t from 'tap';
import { Streams } from '../../../bus/index.js';
import { openConnection, type RawResponse } from '../../harness/raw-http.js';
import { CHALLENGE_MAX_BYTES } from '../../../http/webhooks/chat.routes.js';
import { jwksServer } from './fixtures/jwks-server.js';
import { relayIssuer } from './fixtures/signers.js';
import { vendorCases } from './fixtures/vendors.js';
import { startWebhookNode, type WebhookNode } from './fixtures/webhook-node.js';

const issuer = relayIssuer('k1');
const DECLARED = 20 * 1024 * 1024;
const FIRST = 'x'.repeat(1024);

/** The header that carries the credential in a vendor's signed headers. */
const credentialHeader = (headers: Record<string, string>): string =>
  Object.keys(headers).find((k) => /signature|token|authorization/.test(k)) ?? '';

/** Sends the headers and the first KiB of a 20 MiB body, then only listens. */
async function partialUpload(
  node: WebhookNode,
  path: string,
  headers: Record<string, string>,
): Promise<{ answer: RawResponse; closed: boolean }> {
  const conn = await openConnection(node.h.gw.port);
  const closed = once(conn.socket, 'close');
  const head = Object.entries({ host: 'x', 'content-type': 'application/json', ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  conn.write(`POST ${path} HTTP/1.1\r\n${head}content-length: ${DECLARED}\r\n\r\n${FIRST}`);
  const answer = await conn.response();
  await closed;
  return { answer, closed: conn.socket.destroyed };
}

async function stored(node: WebhookNode): Promise<number> {
  return (await node.messages(Streams.Webhooks)).length + (await node.messages(Streams.WebhooksWiki)).length;
}

t.test('a receiver without its secret answers 503 before the body is read, for every vendor', async (t) => {
  const jwks = await jwksServer(() => issuer.jwks);
  t.teardown(() => jwks.close());
  const node = await startWebhookNode({ relayJwksUrl: jwks.url });
  t.teardown(() => node.close());
  const saved = node.settings;
  for (const v of vendorCases(issuer)) {
    node.settings = v.unset(saved);
    const { answer, closed } = await partialUpload(node, v.path, v.sign(v.body(1), { id: 'fc-1' }));
    t.equal(answer.status, 503, `${v.name}: 503 with 1 KiB of 20 MiB sent`);
    t.equal(answer.headers['retry-after'], '30', `${v.name}: Retry-After`);
    t.notOk((JSON.parse(answer.body) as { error?: string }).error, `${v.name}: codeless (spec)`);
    t.equal(answer.headers['connection'], 'close', `${v.name}: closing`);
    t.ok(closed, `${v.name}: connection closed`);
  }
  node.settings = saved;
  t.equal(await stored(node), 0, 'nothing kept');
  const unread = node.h.logs.filter((l) => l['event'] === 'webhook_not_configured');
  t.equal(unread.length, vendorCases(issuer).length, 'each counted and logged as not configured');
});

t.test('a delivery without its credential header answers 401 before the body is read', async (t) => {
  const jwks = await jwksServer(() => issuer.jwks);
  t.teardown(() => jwks.close());
  const node = await startWebhookNode({ relayJwksUrl: jwks.url });
  t.teardown(() => node.close());
  for (const v of vendorCases(issuer)) {
    const signed = v.sign(v.body(2), { id: 'fc-2' });
    const name = credentialHeader(signed);
    t.ok(name, `${v.name}: signs with a credential header`);
    const headers = { ...signed };
    delete headers[name];
    const { answer, closed } = await partialUpload(node, v.path, headers);
    t.equal(answer.status, 401, `${v.name}: 401 with 1 KiB of 20 MiB sent`);
    t.equal((JSON.parse(answer.body) as { error?: string }).error, 'invalid_token', `${v.name}: code`);
    t.equal(answer.headers['connection'], 'close', `${v.name}: closing`);
    t.ok(closed, `${v.name}: connection closed`);
    // Only the relay's sender authenticates over HTTP (`Authorization: Bearer`): RFC 6750's challenge.
    t.equal(
      answer.headers['www-authenticate'],
      v.path === '/webhooks/relay' ? 'Bearer realm="svc"' : undefined,
      `${v.name}: challenge`,
    );
  }
  t.equal(await stored(node), 0, 'nothing kept');
  const reasons = node.h.logs.filter((l) => l['event'] === 'webhook_refused').map((l) => l['reason']);
  t.equal(reasons.length, vendorCases(issuer).length, 'each counted and logged as refused');
  t.ok(
    reasons.every((r) => r === 'missing_signature' || r === 'missing_token'),
    'the reason names the missing credential',
  );
});

t.test('a per-seat path of a handle no seat could have answers 404 before the body is read', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  for (const path of ['/webhooks/codehost-a/', '/webhooks/chat/']) {
    const handle = 'a'.repeat(3000);
    const signed = { 'x-codehost-a-signature-256': `sha256=${'0'.repeat(64)}`, 'x-chat-signature': 'v0=00' };
    const { answer, closed } = await partialUpload(node, `${path}${handle}`, signed);
    t.equal(answer.status, 404, `${path}: 404 with 1 KiB of 20 MiB sent`);
    t.equal((JSON.parse(answer.body) as { error?: string }).error, 'no_route', `${path}: code`);
    t.ok(closed, `${path}: connection closed`);
  }
  t.equal(await stored(node), 0, 'nothing kept');
});

t.test('a delivery that carries a credential is still read whole and verified', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const v = vendorCases(null).find((c) => c.name === 'tracker-a')!;
  const body = v.body(3);
  const good = await node.post(v.path, body, v.sign(body, { id: 'fc-3' }));
  t.equal(good.status, 200, 'signed: accepted');
  const forged = await node.post(v.path, body, {
    ...v.sign(body, { id: 'fc-4' }),
    'x-hub-signature': `sha256=${'0'.repeat(64)}`,
  });
  t.equal(forged.status, 401, 'a present but wrong signature is refused after the body, as before');
  t.equal(await stored(node), 1);
});

t.test('chat reads an unverifiable body only while it could be a challenge', async (t) => {
  const node = await startWebhookNode();
  t.teardown(() => node.close());
  const chat = vendorCases(null).find((c) => c.name === 'chat')!;
  const saved = node.settings;
  node.settings = chat.unset(saved);
  const challenge = JSON.stringify({ type: 'url_verification', challenge: 'c-123', token: 'x' });
  t.ok(Buffer.byteLength(challenge) <= CHALLENGE_MAX_BYTES);
  const answered = await node.post(chat.path, challenge);
  t.equal(answered.status, 200, 'a small unsigned challenge is still answered without a secret');
  t.same(answered.json, { challenge: 'c-123' });
  const noSecret = await partialUpload(node, chat.path, {});
  t.equal(noSecret.answer.status, 503, 'without a secret, a body larger than a challenge is refused unread');
  node.settings = saved;
  const unsigned = await partialUpload(node, chat.path, {});
  t.equal(unsigned.answer.status, 401, 'with a secret, an unsigned large body is refused unread');
  const signed = chat.body(7);
  const accepted = await node.post(chat.path, signed, chat.sign(signed, { id: 'c-7' }));
  t.equal(accepted.status, 200, 'a signed event is read and accepted');
});
