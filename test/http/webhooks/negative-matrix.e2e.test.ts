/**
 * The negative matrix, per scheme: a body one byte longer or shorter, one signature character flipped,
 * an empty or truncated signature, uppercase, only an unsupported scheme version, re-serialised JSON.
 * Every answer is 401 or 400 — never 5xx — and nothing reaches the audit store, the notification
 * stream or an inbox.
 */
import t from 'tap';
import { Streams } from '../../../bus/index.js';
import { jwksServer } from './fixtures/jwks-server.js';
import { relayIssuer } from './fixtures/signers.js';
import { vendorCases } from './fixtures/vendors.js';
import { startWebhookNode } from './fixtures/webhook-node.js';

const issuer = relayIssuer('k1');

/** The header that carries the credential in a vendor's signed headers. */
const credentialHeader = (headers: Record<string, string>): string =>
  Object.keys(headers).find((k) => /signature|token|authorization/.test(k)) ?? '';

const flip = (s: string, at: number): string => {
  const c = s[at] ?? 'a';
  const next = c === 'a' ? 'b' : c === 'A' ? 'B' : c === '0' ? '1' : 'a';
  return s.slice(0, at) + next + s.slice(at + 1);
};

/** Replaces the scheme/version part of a credential with one no verifier supports. */
function unsupportedVersion(value: string): string | null {
  if (value.startsWith('sha256=')) return `sha1=${value.slice(7)}`;
  if (value.startsWith('v0=')) return `v1=${value.slice(3)}`;
  if (value.startsWith('v1,')) return `v2,${value.slice(3)}`;
  if (value.startsWith('Bearer ')) {
    const [h, p, s] = value.slice(7).split('.');
    const header = { ...(JSON.parse(Buffer.from(h!, 'base64url').toString()) as object), alg: 'RS512' };
    return `Bearer ${Buffer.from(JSON.stringify(header)).toString('base64url')}.${p}.${s}`;
  }
  if (/^[0-9a-f]{64}$/.test(value)) return `v2=${value}`;
  return null; // shared tokens have no version
}

t.test('no mutation of a signed delivery is accepted, answered 5xx, or published', async (t) => {
  const jwks = await jwksServer(() => issuer.jwks);
  t.teardown(() => jwks.close());
  const node = await startWebhookNode({ relayJwksUrl: jwks.url });
  t.teardown(() => node.close());
  for (const v of vendorCases(issuer)) {
    const body = v.body(1);
    const signed = v.sign(body, { id: 'm-1' });
    const name = credentialHeader(signed);
    const value = signed[name] ?? '';
    const cases: Array<[string, string, Record<string, string>]> = [
      ['body +1 byte', `${body} `, signed],
      ['body -1 byte', body.slice(0, -1), signed],
      ['one credential character flipped', body, { ...signed, [name]: flip(value, value.length - 5) }],
      ['empty credential', body, { ...signed, [name]: '' }],
      ['truncated credential', body, { ...signed, [name]: value.slice(0, Math.floor(value.length / 2)) }],
      ['uppercase credential', body, { ...signed, [name]: value.toUpperCase() }],
      ['re-serialised JSON', JSON.stringify(JSON.parse(body), null, 2), signed],
    ];
    const unsupported = unsupportedVersion(value);
    if (unsupported !== null)
      cases.push(['only an unsupported scheme version', body, { ...signed, [name]: unsupported }]);
    // Shared tokens and the relay's bearer token do not sign the body: a changed body with a good
    // credential is a valid delivery, so only credential mutations apply to them.
    const bodyBound = name !== 'x-service-token' && name !== 'authorization';
    for (const [label, sent, headers] of cases) {
      if (!bodyBound && headers[name] === value) continue;
      const res = await node.post(v.path, sent, headers);
      t.ok(res.status === 401 || res.status === 400, `${v.name}: ${label} -> ${res.status}`);
    }
  }
  t.equal((await node.messages(Streams.Webhooks)).length, 0, 'nothing in the audit store');
  t.equal((await node.messages(Streams.WebhooksWiki)).length, 0, 'nothing in the wiki audit store');
  t.equal((await node.bus.streamInfo(Streams.Inbox)).lastSeq, 0, 'no inbox message');
});
