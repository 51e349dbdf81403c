/** codehost-a: `x-codehost-a-signature-256: sha256=<hex>` = HMAC-SHA256(webhook secret, raw body). */
import { verifyHexHmac, type Verdict } from './verify.js';

export const CodehostAHeaders = {
  signature: 'x-codehost-a-signature-256',
  event: 'x-codehost-a-event',
  delivery: 'x-codehost-a-delivery',
} as const;

export function verifyCodehostA(
  secret: string,
  headers: Readonly<Record<string, string>>,
  body: Buffer,
): Verdict {
  return verifyHexHmac(secret, headers[CodehostAHeaders.signature], 'sha256=', body);
}
