/**
 * The primitives every verifier shares: HMAC, a constant-time compare, and cheap shape checks that run
 * first, so a signature in the wrong form is a 401 (never a 500, never a compare of odd lengths).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Why a delivery was refused; logged by name (never with the body, the secret or the candidate). */
export type Refusal =
  | 'missing_signature'
  | 'malformed_signature'
  | 'bad_signature'
  | 'unsupported_scheme'
  | 'missing_timestamp'
  | 'malformed_timestamp'
  | 'missing_delivery_id'
  | 'malformed_delivery_id'
  | 'stale_timestamp'
  | 'future_timestamp'
  | 'missing_token'
  | 'bad_token'
  | 'unknown_key'
  | 'bad_claims';

export type Verdict = { readonly ok: true } | { readonly ok: false; readonly reason: Refusal };

export const OK: Verdict = { ok: true };
export const refuse = (reason: Refusal): Verdict => ({ ok: false, reason });

/** Lowercase hex of SHA-256 (64 characters); uppercase is a different string and is refused. */
export const HEX_SHA256 = /^[0-9a-f]{64}$/;
/** Standard base64 of 32 bytes. */
export const B64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;
/** Signatures and timestamps older or newer than this are refused (spec "Limits"). */
export const TOLERANCE_SECONDS = 5 * 60;

export function hmacSha256(key: string | Buffer, ...parts: ReadonlyArray<string | Buffer>): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** Constant-time equality of two byte strings; unequal lengths are simply unequal. */
export function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Constant-time compare of two strings (shared tokens): both are hashed first, so lengths leak nothing. */
export function safeEqualText(candidate: string, expected: string): boolean {
  const h = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(h(candidate), h(expected)) && candidate.length === expected.length;
}

/** A body digest, for vendors that send no delivery id. */
export function bodyDigest(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

/**
 * `<prefix><64 lowercase hex>` = HMAC-SHA256(secret, body): the `X-Hub-Signature` family
 * (tracker-a, wiki self-hosted and codehost-a use `sha256=`, tracker-b no prefix).
 */
export function verifyHexHmac(
  secret: string | Buffer,
  header: string | undefined,
  prefix: string,
  ...signed: ReadonlyArray<string | Buffer>
): Verdict {
  if (header === undefined || header === '') return refuse('missing_signature');
  if (!header.startsWith(prefix)) return refuse(prefix === '' ? 'malformed_signature' : 'unsupported_scheme');
  const hex = header.slice(prefix.length);
  if (!HEX_SHA256.test(hex)) return refuse('malformed_signature');
  return safeEqual(Buffer.from(hex, 'hex'), hmacSha256(secret, ...signed)) ? OK : refuse('bad_signature');
}

/** A Unix-seconds timestamp header within the tolerance, both ways. */
export function checkTimestamp(value: string | undefined, nowMs: number): Verdict {
  if (value === undefined || value === '') return refuse('missing_timestamp');
  // Unix seconds: 13 digits are milliseconds, a sender's usual mistake, told apart from an absent header.
  if (!/^\d{1,12}$/.test(value)) return refuse('malformed_timestamp');
  const skew = Number(value) - Math.floor(nowMs / 1000);
  if (skew < -TOLERANCE_SECONDS) return refuse('stale_timestamp');
  if (skew > TOLERANCE_SECONDS) return refuse('future_timestamp');
  return OK;
}
