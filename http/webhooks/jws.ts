/**
 * Compact JWS (RFC 7515) verification for the relay's invocation tokens: shape first, then the
 * signature (RS256 with a key from the vendor key set; HS256 only where a caller names it, for the RFC
 * vector), then the claims. The algorithm a caller accepts is fixed by the caller, never by the token.
 */
import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { hmacSha256, refuse, safeEqual, type Verdict } from './verify.js';
import { isRecord } from '../../schema/index.js';

const B64URL = /^[A-Za-z0-9_-]*$/;

export interface JwsParts {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly signingInput: string;
  readonly signature: Buffer;
}

function decodeJson(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** Splits a compact token; null when it is not three base64url segments of JSON, JSON, bytes. */
export function parseJws(token: string): JwsParts | null {
  if (token.length > 16 * 1024) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [h, p, s] = parts as [string, string, string];
  if (h === '' || p === '' || s === '' || !B64URL.test(h) || !B64URL.test(p) || !B64URL.test(s)) return null;
  const header = decodeJson(h);
  const payload = decodeJson(p);
  if (header === null || payload === null) return null;
  return { header, payload, signingInput: `${h}.${p}`, signature: Buffer.from(s, 'base64url') };
}

/** HS256 over a signing input (RFC 7515 A.1). */
export function verifyHs256(signingInput: string, signatureB64url: string, key: Buffer): boolean {
  if (!B64URL.test(signatureB64url)) return false;
  return safeEqual(Buffer.from(signatureB64url, 'base64url'), hmacSha256(key, signingInput));
}

/** RS256 over a signing input with an RSA public key. */
export function verifyRs256(signingInput: string, signature: Buffer, key: KeyObject): boolean {
  if (key.asymmetricKeyType !== 'rsa') return false;
  try {
    return verifySignature('RSA-SHA256', Buffer.from(signingInput), key, signature);
  } catch {
    return false;
  }
}

/** An RSA public key from a JWK; null when the JWK is not one. */
export function rsaKeyFromJwk(jwk: Record<string, unknown>): KeyObject | null {
  if (jwk['kty'] !== 'RSA' || typeof jwk['n'] !== 'string' || typeof jwk['e'] !== 'string') return null;
  try {
    return createPublicKey({ key: { kty: 'RSA', n: jwk['n'], e: jwk['e'] }, format: 'jwk' });
  } catch {
    return null;
  }
}

/** Registered claims: `aud` (string or list) must name `audience`; `exp`/`nbf`/`iat` within leeway. */
export function checkClaims(
  payload: Record<string, unknown>,
  audience: string,
  nowMs: number,
  leewaySeconds = 60,
): Verdict {
  const now = Math.floor(nowMs / 1000);
  const aud = payload['aud'];
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (!audiences.some((a) => a === audience)) return refuse('bad_claims');
  const exp = payload['exp'];
  if (typeof exp !== 'number') return refuse('bad_claims');
  if (exp + leewaySeconds < now) return refuse('stale_timestamp');
  for (const claim of ['nbf', 'iat'] as const) {
    const value = payload[claim];
    if (value === undefined) continue;
    if (typeof value !== 'number') return refuse('bad_claims');
    if (value - leewaySeconds > now) return refuse('future_timestamp');
  }
  return { ok: true };
}
