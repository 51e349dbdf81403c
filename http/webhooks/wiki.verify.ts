/**
 * wiki: self-hosted deliveries carry `X-Hub-Signature: sha256=<hex>` over the raw body; cloud events on
 * `/webhooks/wiki/{event}` carry a shared token in `X-Service-Token` (or `?token=` as a fallback).
 */
import { refuse, safeEqualText, verifyHexHmac, type Verdict } from './verify.js';

export const WikiHeaders = { signature: 'x-hub-signature', token: 'x-service-token' } as const;

export function verifyWikiSigned(
  secret: string,
  headers: Readonly<Record<string, string>>,
  body: Buffer,
): Verdict {
  return verifyHexHmac(secret, headers[WikiHeaders.signature], 'sha256=', body);
}

/** A shared token, compared in constant time; the header wins over the query parameter. */
export function verifyServiceToken(
  expected: string,
  header: string | undefined,
  query: string | null,
): Verdict {
  const candidate = header !== undefined && header !== '' ? header : (query ?? '');
  if (candidate === '') return refuse('missing_token');
  if (candidate.length > 4096) return refuse('bad_token');
  return safeEqualText(candidate, expected) ? { ok: true } : refuse('bad_token');
}
