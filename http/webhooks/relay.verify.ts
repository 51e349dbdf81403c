/**
 * relay: `Authorization: Bearer <JWT>` signed RS256 by a key of the vendor key set, `aud` equal to
 * `relay_app_id`. Only RS256 is accepted (the token cannot choose HS256 or `none`).
 */
import { checkClaims, parseJws, verifyRs256 } from './jws.js';
import type { RelayKeySet } from './relay-keys.js';
import { refuse, type Verdict } from './verify.js';

export const RelayHeaders = { authorization: 'authorization' } as const;

export async function verifyRelay(
  appId: string,
  keys: RelayKeySet,
  headers: Readonly<Record<string, string>>,
  nowMs: number,
): Promise<Verdict & { claims?: Record<string, unknown> }> {
  const auth = headers[RelayHeaders.authorization];
  if (auth === undefined || auth === '') return refuse('missing_token');
  const match = /^Bearer ([^\s]+)$/.exec(auth);
  if (!match) return refuse('malformed_signature');
  const jws = parseJws(match[1] ?? '');
  if (jws === null) return refuse('malformed_signature');
  if (jws.header['alg'] !== 'RS256') return refuse('unsupported_scheme');
  const kid = jws.header['kid'];
  if (typeof kid !== 'string' || kid === '' || kid.length > 256) return refuse('unknown_key');
  const key = await keys.key(kid);
  if (key === null) return refuse('unknown_key');
  if (!verifyRs256(jws.signingInput, jws.signature, key)) return refuse('bad_signature');
  const claims = checkClaims(jws.payload, appId, nowMs);
  return claims.ok ? { ok: true, claims: jws.payload } : claims;
}
