/**
 * The relay receiver follows the vendor's key rotation without a restart: a token the cached key set
 * cannot verify triggers one fetch of the set, at most once per 30 s window, and the retry is verified
 * against the fresh set. Real listener, real key-set server; the window's clock is driven by the test.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { relayKeySet } from '../../../http/index.js';
import { jwksServer } from './fixtures/jwks-server.js';
import { relayIssuer, type RelayIssuer } from './fixtures/signers.js';
import { vendorCases } from './fixtures/vendors.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

const windowMs = 30_000;

async function relayNode(t: Test, initial: RelayIssuer) {
  let serving = initial;
  const jwks = await jwksServer(() => serving.jwks);
  t.teardown(() => jwks.close());
  let clock = 0;
  let attempts = 0;
  const node = await startWebhookNode({
    relayJwksUrl: jwks.url,
    relayKeySet: (url) =>
      relayKeySet(url, {
        now: () => clock,
        fetch: (input, init) => {
          attempts += 1;
          return fetch(input, init);
        },
      }),
  });
  t.teardown(() => node.close());
  const relayCase = vendorCases(initial).find((v) => v.name === 'relay');
  if (!relayCase) throw new Error('no relay vendor case');
  let n = 0;
  return {
    jwks,
    /** The key set the vendor publishes from now on. */
    rotateTo: (next: RelayIssuer) => (serving = next),
    advance: (ms: number) => (clock += ms),
    attempts: () => attempts,
    /** Posts a fresh relay event signed by `issuer` (or with `header` overrides); resolves with the status. */
    async deliver(issuer: RelayIssuer, header: Record<string, unknown> = {}): Promise<number> {
      const s = Math.floor(Date.now() / 1000);
      const token = issuer.token({ aud: 'relay-app-1', iat: s, exp: s + 60 }, header);
      n += 1;
      return (await node.post('/webhooks/relay', relayCase.body(n), { authorization: `Bearer ${token}` }))
        .status;
    },
  };
}

t.test('a key rotated under the same kid is accepted after one refetch of the key set', async (t) => {
  const before = relayIssuer('k1');
  const relay = await relayNode(t, before);
  t.equal(await relay.deliver(before), 200, 'accepted under the first key');
  t.equal(relay.jwks.fetches(), 1);

  const after = relayIssuer('k1');
  relay.rotateTo(after);
  t.equal(await relay.deliver(after), 401, 'within the window of the last fetch the cached set answers');
  t.equal(relay.jwks.fetches(), 1, 'no fetch inside the window');

  relay.advance(windowMs);
  t.equal(await relay.deliver(after), 200, 'the rotated key is accepted without a restart');
  t.equal(relay.jwks.fetches(), 2, 'after exactly one refetch');
  t.equal(await relay.deliver(after), 200, 'the fresh key is cached');
  t.equal(relay.jwks.fetches(), 2, 'a good signature fetches nothing');
  t.equal(await relay.deliver(before), 401, 'the retired key is refused (fail closed)');
});

t.test(
  'a flood of bad signatures and unknown kids fetches the key set at most once per rate window',
  async (t) => {
    const vendor = relayIssuer('k1');
    const forger = relayIssuer('k1');
    const relay = await relayNode(t, vendor);
    t.equal(await relay.deliver(vendor), 200);
    const flood = async () => {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0 ? relay.deliver(forger) : relay.deliver(vendor, { kid: `k-unknown-${i}` }),
        ),
      );
      return statuses.every((s) => s === 401);
    };
    t.ok(await flood(), 'every forged or unknown-kid token is refused');
    t.equal(relay.jwks.fetches(), 1, 'no fetch inside the window of the first');
    relay.advance(windowMs);
    t.ok(await flood(), 'refused again after the window');
    t.ok(await flood(), 'and again');
    t.equal(relay.jwks.fetches(), 2, 'one fetch for the whole window');
    relay.advance(windowMs);
    t.ok(await flood());
    t.equal(relay.jwks.fetches(), 3, 'one more in the next window');
    t.equal(await relay.deliver(vendor), 200, 'the genuine key still verifies');
    t.equal(relay.jwks.fetches(), 3);
  },
);

t.test(
  'an unreachable key set answers 503 and is tried again only after the window; cached keys still verify',
  async (t) => {
    const vendor = relayIssuer('k1');
    const relay = await relayNode(t, vendor);
    t.equal(await relay.deliver(vendor), 200);
    t.equal(relay.attempts(), 1);
    await relay.jwks.close();
    relay.advance(windowMs);
    const rotated = relayIssuer('k1');
    t.equal(await relay.deliver(rotated), 503, 'a token that needs the set answers retry-later');
    t.equal(relay.attempts(), 2);
    t.equal(await relay.deliver(rotated), 503, 'still 503 inside the window');
    t.equal(relay.attempts(), 2, 'without another attempt');
    t.equal(await relay.deliver(vendor), 200, 'a token the cached set verifies needs no fetch');
    relay.advance(windowMs);
    t.equal(await relay.deliver(rotated), 503);
    t.equal(relay.attempts(), 3, 'one attempt per window');
  },
);

t.test(
  "a key set the vendor cannot serve answers 503 saying so, with Retry-After, never quoting the vendor's body",
  async (t) => {
    // The vendor's key-set location: one answers 500 with a body of its own, one never answers.
    const held: ServerResponse[] = [];
    const vendor = createServer((req, res) => {
      if (req.url === '/silent') return void held.push(res);
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('vendor-internal-trace-7f3a');
    });
    vendor.listen(0, '127.0.0.1');
    await once(vendor, 'listening');
    t.teardown(() => {
      for (const res of held) res.destroy();
      vendor.closeAllConnections();
      return new Promise<void>((resolve) => vendor.close(() => resolve()));
    });
    const base = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;
    const issuer = relayIssuer('k1');
    const relay = vendorCases(issuer).find((v) => v.name === 'relay')!;
    for (const path of ['/broken', '/silent']) {
      const node = await startWebhookNode({
        relayJwksUrl: `${base}${path}`,
        relayKeySet: (url) => relayKeySet(url, { minRefreshMs: 0, timeoutMs: 200 }),
      });
      t.teardown(() => node.close());
      const body = relay.body(1);
      const res = await node.post(relay.path, body, relay.sign(body, { id: 'ks-1' }));
      t.equal(res.status, 503, path);
      t.equal(res.headers.get('retry-after'), '30', `${path}: Retry-After`);
      t.notOk(res.json?.['error'], `${path}: codeless (spec)`);
      t.match(res.json?.['detail'], /key set could not be fetched/, `${path}: the detail names the key set`);
      t.match(res.json?.['hint'], /sender will retry/, `${path}: the hint says the sender retries`);
      t.notMatch(res.text, /Configure the secret/, `${path}: nothing to configure`);
      t.notOk(res.text.includes('vendor-internal-trace'), `${path}: the vendor's body is never quoted`);
    }
  },
);
