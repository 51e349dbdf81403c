/**
 * chat: `x-chat-signature: v0=<hex>` = HMAC-SHA256(seat signing secret, `v0:{timestamp}:{body}`), with
 * `x-chat-request-timestamp` inside 5 minutes either way (a replayed request carries an old stamp).
 */
import { checkTimestamp, verifyHexHmac, type Verdict } from './verify.js';

export const ChatHeaders = {
  signature: 'x-chat-signature',
  timestamp: 'x-chat-request-timestamp',
  retry: 'x-chat-retry-num',
} as const;

export function verifyChat(
  secret: string,
  headers: Readonly<Record<string, string>>,
  body: Buffer,
  nowMs: number,
): Verdict {
  const signature = headers[ChatHeaders.signature];
  if (signature === undefined || signature === '') return { ok: false, reason: 'missing_signature' };
  const stamp = headers[ChatHeaders.timestamp];
  const fresh = checkTimestamp(stamp, nowMs);
  if (!fresh.ok) return fresh;
  return verifyHexHmac(secret, signature, 'v0=', `v0:${stamp}:`, body);
}
