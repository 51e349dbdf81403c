/**
 * relay: `Authorization: Bearer <JWT>` signed RS256 by a key of the vendor key set, `aud` equal to
 * `relay_app_id`. Only RS256 is accepted (the token cannot choose HS256 or `none`). A token the cached
 * set cannot verify is tried once more against a freshly fetched set, so a rotated key needs no restart.
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
  // The scheme is case-insensitive (RFC 9110 11.1), as the API guard reads it.
  const match = /^bearer[ \t]+(\S+)$/i.exec(auth);
  if (!match) return refuse('malformed_signature');
  const jws = parseJws(match[1] ?? '');
  if (jws === null) return refuse('malformed_signature');
  if (jws.header['alg'] !== 'RS256') return refuse('unsupported_scheme');
  // RFC 7515 4.1.11: a token naming extensions the recipient must understand is invalid, and this one
  // understands none.
  if (jws.header['crit'] !== undefined) return refuse('unsupported_scheme');
  const kid = jws.header['kid'];
  if (typeof kid !== 'string' || kid === '' || kid.length > 256) return refuse('unknown_key');
  const cached = await keys.key(kid);
  if (cached === null || !verifyRs256(jws.signingInput, jws.signature, cached)) {
    // An unknown kid or a failing signature may be a rotation (even under the same kid): one fresh set
    // decides, within the key set's rate window; without a fresh set the cached answer stands.
    if (!(await keys.refresh())) return refuse(cached === null ? 'unknown_key' : 'bad_signature');
    const fresh = await keys.key(kid);
    if (fresh === null) return refuse('unknown_key');
    if (!verifyRs256(jws.signingInput, jws.signature, fresh)) return refuse('bad_signature');
  }
  const claims = checkClaims(jws.payload, appId, nowMs);
  return claims.ok ? { ok: true, claims: jws.payload } : claims;
}
