/**
 * Signed `state` for the browser flows: `base64url(JSON{h, exp, n}).base64url(ed25519 detached sig)`.
 * The signing key comes from a 32-byte seed every node of a fleet derives alike, so any node can check
 * a state another node issued; a state lives 30 minutes.
 */
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';

export const STATE_TTL_MS = 30 * 60 * 1000;

export interface StateSigner {
  issue(handle: string, nowMs?: number): string;
  /** The seat handle the state was issued for, or null when it is forged, altered, or expired. */
  check(state: string, nowMs?: number): string | null;
}

export function stateSigner(seed: Uint8Array): StateSigner {
  const keys = nacl.sign.keyPair.fromSeed(seed);
  return {
    issue(handle, nowMs = Date.now()) {
      const body = Buffer.from(
        JSON.stringify({ h: handle, exp: nowMs + STATE_TTL_MS, n: randomBytes(9).toString('base64url') }),
      );
      const sig = nacl.sign.detached(body, keys.secretKey);
      return `${body.toString('base64url')}.${Buffer.from(sig).toString('base64url')}`;
    },
    check(state, nowMs = Date.now()) {
      if (state.length > 1024 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(state)) return null;
      const [b, s] = state.split('.') as [string, string];
      const body = Buffer.from(b, 'base64url');
      const sig = Buffer.from(s, 'base64url');
      if (sig.length !== nacl.sign.signatureLength) return null;
      if (!nacl.sign.detached.verify(body, sig, keys.publicKey)) return null;
      try {
        const v = JSON.parse(body.toString('utf8')) as { h?: unknown; exp?: unknown };
        if (typeof v.h !== 'string' || typeof v.exp !== 'number' || v.exp < nowMs) return null;
        return v.h;
      } catch {
        return null;
      }
    },
  };
}
