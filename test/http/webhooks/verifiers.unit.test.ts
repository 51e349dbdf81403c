import { readFileSync } from 'node:fs';
import t from 'tap';
import { verifyChat } from '../../../http/webhooks/chat.verify.js';
import { verifyCodehostA } from '../../../http/webhooks/codehost-a.verify.js';
import { verifyCodehostB } from '../../../http/webhooks/codehost-b.verify.js';
import { verifyHs256 } from '../../../http/webhooks/jws.js';
import { verifyMonitor } from '../../../http/webhooks/monitor.verify.js';
import type { RelayKeySet } from '../../../http/webhooks/relay-keys.js';
import { rsaKeyFromJwk } from '../../../http/webhooks/jws.js';
import { verifyRelay } from '../../../http/webhooks/relay.verify.js';
import { verifyTrackerA } from '../../../http/webhooks/tracker-a.verify.js';
import { verifyTrackerB } from '../../../http/webhooks/tracker-b.verify.js';
import { verifyHexHmac } from '../../../http/webhooks/verify.js';
import { verifyServiceToken, verifyWikiSigned } from '../../../http/webhooks/wiki.verify.js';
import { relayIssuer } from './fixtures/signers.js';

interface Vectors {
  standard_webhooks: { secret: string; id: string; timestamp: string; body: string; signature: string };
  codehost_a_hmac_sha256: { secret: string; body: string; signature: string };
  chat_v0: { secret: string; timestamp: string; body: string; signature: string };
  jws_hs256_rfc7515_a1: { key_b64url: string; signing_input: string; signature: string };
}
const vectors = JSON.parse(readFileSync('/work/shared/vectors/signatures.json', 'utf8')) as Vectors;
const buf = (s: string): Buffer => Buffer.from(s, 'utf8');

t.test('golden: the Standard Webhooks reference vector verifies (codehost-b)', async (t) => {
  const v = vectors.standard_webhooks;
  const headers = { 'webhook-id': v.id, 'webhook-timestamp': v.timestamp, 'webhook-signature': v.signature };
  t.same(verifyCodehostB(v.secret, headers, buf(v.body), Number(v.timestamp) * 1000), { ok: true });
  // Several signatures (a rotation): any one matching is enough, unknown versions are skipped.
  const many = { ...headers, 'webhook-signature': `v2,abc v1,${'A'.repeat(43)}= ${v.signature}` };
  t.same(verifyCodehostB(v.secret, many, buf(v.body), Number(v.timestamp) * 1000), { ok: true });
  const late = verifyCodehostB(v.secret, headers, buf(v.body), (Number(v.timestamp) + 301) * 1000);
  t.same(late, { ok: false, reason: 'stale_timestamp' });
  const early = verifyCodehostB(v.secret, headers, buf(v.body), (Number(v.timestamp) - 301) * 1000);
  t.same(early, { ok: false, reason: 'future_timestamp' });
});

t.test('a codehost-b delivery refused for its id or timestamp says which header is wrong', async (t) => {
  const v = vectors.standard_webhooks;
  const now = Number(v.timestamp) * 1000;
  const headers = { 'webhook-id': v.id, 'webhook-timestamp': v.timestamp, 'webhook-signature': v.signature };
  const { 'webhook-id': _id, ...noId } = headers;
  t.same(verifyCodehostB(v.secret, noId, buf(v.body), now), { ok: false, reason: 'missing_delivery_id' });
  const longId = { ...headers, 'webhook-id': 'x'.repeat(257) };
  t.same(verifyCodehostB(v.secret, longId, buf(v.body), now), { ok: false, reason: 'malformed_delivery_id' });
  const { 'webhook-timestamp': _stamp, ...noStamp } = headers;
  t.same(verifyCodehostB(v.secret, noStamp, buf(v.body), now), { ok: false, reason: 'missing_timestamp' });
  // Milliseconds (13 digits) and words are malformed, not missing.
  for (const stamp of [String(now), 'yesterday', '-1', '1.5']) {
    const bad = { ...headers, 'webhook-timestamp': stamp };
    t.same(
      verifyCodehostB(v.secret, bad, buf(v.body), now),
      { ok: false, reason: 'malformed_timestamp' },
      stamp,
    );
  }
});

t.test('golden: the codehost-a documentation example verifies', async (t) => {
  const v = vectors.codehost_a_hmac_sha256;
  t.same(verifyCodehostA(v.secret, { 'x-codehost-a-signature-256': v.signature }, buf(v.body)), { ok: true });
});

t.test('golden: the chat v0 documentation example verifies inside its 5-minute window only', async (t) => {
  const v = vectors.chat_v0;
  const headers = { 'x-chat-signature': v.signature, 'x-chat-request-timestamp': v.timestamp };
  const at = Number(v.timestamp) * 1000;
  t.same(verifyChat(v.secret, headers, buf(v.body), at + 299_000), { ok: true });
  t.same(verifyChat(v.secret, headers, buf(v.body), at + 301_000), { ok: false, reason: 'stale_timestamp' });
  t.same(verifyChat(v.secret, headers, buf(v.body), at - 301_000), { ok: false, reason: 'future_timestamp' });
});

t.test('golden: RFC 7515 A.1 HS256 verifies on the JWS path, and a flipped byte does not', async (t) => {
  const v = vectors.jws_hs256_rfc7515_a1;
  const key = Buffer.from(v.key_b64url, 'base64url');
  t.ok(verifyHs256(v.signing_input, v.signature, key));
  t.notOk(verifyHs256(`${v.signing_input}x`, v.signature, key));
  t.notOk(verifyHs256(v.signing_input, `${v.signature.slice(0, -1)}A`, key));
  t.notOk(verifyHs256(v.signing_input, 'not base64url!', key));
});

t.test('golden: tracker-a and wiki self-hosted verify the same X-Hub-Signature example', async (t) => {
  // The same scheme as codehost-a (`sha256=<hex>` of the raw body), under their own header name.
  const v = vectors.codehost_a_hmac_sha256;
  const headers = { 'x-hub-signature': v.signature };
  t.same(verifyTrackerA(v.secret, headers, buf(v.body)), { ok: true });
  t.same(verifyWikiSigned(v.secret, headers, buf(v.body)), { ok: true });
  t.same(verifyTrackerA(v.secret, headers, buf(`${v.body} `)), { ok: false, reason: 'bad_signature' });
  t.same(verifyWikiSigned(`${v.secret}x`, headers, buf(v.body)), { ok: false, reason: 'bad_signature' });
  const sha1 = { 'x-hub-signature': `sha1=${v.signature.slice('sha256='.length, 'sha256='.length + 40)}` };
  t.same(verifyTrackerA(v.secret, sha1, buf(v.body)), { ok: false, reason: 'unsupported_scheme' });
});

interface WycheproofMac {
  testGroups: Array<{
    tagSize: number;
    tests: Array<{ tcId: number; key: string; msg: string; tag: string; result: string }>;
  }>;
}
const wycheproof = JSON.parse(
  readFileSync('/work/shared/vectors/wycheproof-hmac-sha256.json', 'utf8'),
) as WycheproofMac;

t.test('golden: every Wycheproof HMAC-SHA256 case is answered as the vectors say', async (t) => {
  let checked = 0;
  for (const group of wycheproof.testGroups) {
    for (const c of group.tests) {
      const key = Buffer.from(c.key, 'hex');
      const verdict = verifyHexHmac(key, `sha256=${c.tag}`, 'sha256=', Buffer.from(c.msg, 'hex'));
      // A header carries the whole 256-bit tag: a truncated one, valid or not, is refused by its shape.
      const expected =
        group.tagSize !== 256
          ? { ok: false, reason: 'malformed_signature' }
          : c.result === 'valid'
            ? { ok: true }
            : { ok: false, reason: 'bad_signature' };
      if (JSON.stringify(verdict) !== JSON.stringify(expected))
        t.fail(`tcId ${c.tcId}: ${JSON.stringify(verdict)}`);
      checked++;
    }
  }
  t.equal(checked, 174, 'all cases checked');
});

// Frozen: computed once with Python's hmac module, independent of node:crypto and of this code.
const trackerB = {
  secret: 'tracker-b frozen secret',
  body: '{"event":"issue","action":"created","data":{"id":"7"}}',
  signature: '582bfcd9d66a27c76e1cfd1e4d54c19eb72b2440fa4ec62f64aa010f5e5092f9',
};

t.test('golden: the frozen tracker-b vector verifies; uppercase hex and a prefix do not', async (t) => {
  const ok = verifyTrackerB(
    trackerB.secret,
    { 'x-tracker-b-signature': trackerB.signature },
    buf(trackerB.body),
  );
  t.same(ok, { ok: true });
  const upper = { 'x-tracker-b-signature': trackerB.signature.toUpperCase() };
  t.same(verifyTrackerB(trackerB.secret, upper, buf(trackerB.body)), {
    ok: false,
    reason: 'malformed_signature',
  });
  const prefixed = { 'x-tracker-b-signature': `sha256=${trackerB.signature}` };
  t.same(verifyTrackerB(trackerB.secret, prefixed, buf(trackerB.body)), {
    ok: false,
    reason: 'malformed_signature',
  });
});

function keySet(jwks: { keys: Array<Record<string, unknown>> }): RelayKeySet {
  return {
    key: async (kid) => {
      const jwk = jwks.keys.find((k) => k['kid'] === kid);
      return jwk ? rsaKeyFromJwk(jwk) : null;
    },
    // A fixed set: nothing fresh to fetch.
    refresh: () => Promise.resolve(false),
  };
}

t.test(
  'golden: an RS256 relay token minted here verifies; wrong aud, expiry, alg and kid do not',
  async (t) => {
    const issuer = relayIssuer('k1');
    const keys = keySet(issuer.jwks);
    const now = Date.now();
    const s = Math.floor(now / 1000);
    const bearer = (tok: string) => ({ authorization: `Bearer ${tok}` });
    const good = issuer.token({ aud: 'app-1', iss: 'relay', iat: s, exp: s + 60 });
    t.match(await verifyRelay('app-1', keys, bearer(good), now), { ok: true });
    for (const scheme of ['bearer', 'BEARER', 'Bearer  '])
      t.match(
        await verifyRelay('app-1', keys, { authorization: `${scheme} ${good}` }, now),
        { ok: true },
        `the auth scheme is case-insensitive (RFC 9110): ${JSON.stringify(scheme)}`,
      );
    t.match(await verifyRelay('app-2', keys, bearer(good), now), { ok: false, reason: 'bad_claims' });
    const aud = issuer.token({ aud: ['x', 'app-1'], exp: s + 60 });
    t.match(await verifyRelay('app-1', keys, bearer(aud), now), { ok: true }, 'aud may be a list');
    const expired = issuer.token({ aud: 'app-1', exp: s - 120 });
    t.match(await verifyRelay('app-1', keys, bearer(expired), now), { ok: false, reason: 'stale_timestamp' });
    const future = issuer.token({ aud: 'app-1', nbf: s + 600, exp: s + 900 });
    t.match(await verifyRelay('app-1', keys, bearer(future), now), { ok: false, reason: 'future_timestamp' });
    const noExp = issuer.token({ aud: 'app-1' });
    t.match(await verifyRelay('app-1', keys, bearer(noExp), now), { ok: false, reason: 'bad_claims' });
    const other = relayIssuer('k1').token({ aud: 'app-1', exp: s + 60 });
    t.match(await verifyRelay('app-1', keys, bearer(other), now), { ok: false, reason: 'bad_signature' });
    const unknownKid = issuer.token({ aud: 'app-1', exp: s + 60 }, { kid: 'k9' });
    t.match(await verifyRelay('app-1', keys, bearer(unknownKid), now), { ok: false, reason: 'unknown_key' });
    // alg confusion: HS256 with the public key as the secret, and `none`, are refused by name.
    const [h, p] = good.split('.');
    const hs = `${Buffer.from(JSON.stringify({ alg: 'HS256', kid: 'k1' })).toString('base64url')}.${p}.c2ln`;
    t.match(await verifyRelay('app-1', keys, bearer(hs), now), { ok: false, reason: 'unsupported_scheme' });
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.`;
    t.match(await verifyRelay('app-1', keys, bearer(none), now), {
      ok: false,
      reason: 'malformed_signature',
    });
    t.match(await verifyRelay('app-1', keys, bearer(`${h}.${p}`), now), {
      ok: false,
      reason: 'malformed_signature',
    });
    t.match(await verifyRelay('app-1', keys, { authorization: good }, now), {
      ok: false,
      reason: 'malformed_signature',
    });
    t.match(await verifyRelay('app-1', keys, {}, now), { ok: false, reason: 'missing_token' });
  },
);

t.test(
  'a relay token naming critical header extensions is refused: the node understands none (RFC 7515 4.1.11)',
  async (t) => {
    const issuer = relayIssuer('k1');
    const keys = keySet(issuer.jwks);
    const now = Date.now();
    const exp = Math.floor(now / 1000) + 60;
    for (const crit of [['exp'], ['x-vendor'], [], 'x-vendor']) {
      const token = issuer.token({ aud: 'app-1', exp }, { crit, 'x-vendor': 1 });
      t.match(
        await verifyRelay('app-1', keys, { authorization: `Bearer ${token}` }, now),
        { ok: false, reason: 'unsupported_scheme' },
        `crit ${JSON.stringify(crit)}`,
      );
    }
  },
);

t.test(
  'shared tokens compare whole values: a prefix, a longer value and an empty one are refused',
  async (t) => {
    const token = 'monitor-token-0123456789abcdef';
    t.same(verifyMonitor(token, { 'x-service-token': token }), { ok: true });
    t.same(verifyMonitor(token, { 'x-service-token': token.slice(0, -1) }), {
      ok: false,
      reason: 'bad_token',
    });
    t.same(verifyMonitor(token, { 'x-service-token': `${token}x` }), { ok: false, reason: 'bad_token' });
    t.same(verifyMonitor(token, {}), { ok: false, reason: 'missing_token' });
    t.same(verifyServiceToken(token, undefined, token), { ok: true }, 'wiki cloud accepts ?token=');
    t.same(verifyServiceToken(token, 'wrong', token), { ok: false, reason: 'bad_token' }, 'the header wins');
  },
);
