/**
 * Signed `state` for the browser flows: `base64url(JSON{h, exp, n, by?, a?}).base64url(ed25519 detached sig)`.
 * The signing key comes from a 32-byte seed every node of a fleet derives alike, so any node can check
 * a state another node issued; a state lives 30 minutes. `by` is who began the flow, so the unauthenticated
 * return records its writes as theirs; a state an older build issued has none. `a` is the app id the seat
 * held when the flow began (absent: none): the return that records an app moves it on, which spends the state.
 */
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import { z } from 'zod';
import { CallerKind, type Caller } from '../../schema/index.js';

export const STATE_TTL_MS = 30 * 60 * 1000;

/** What a good state carries: the seat handle, and who began the flow (null: not said). */
export interface Checked {
  readonly handle: string;
  readonly by: Caller | null;
  /** The app id the seat held when the flow began; `''` when none (or a state of an older build). */
  readonly app: string;
}

export interface StateSigner {
  issue(handle: string, by: Caller | null, app: string, nowMs?: number): string;
  /** What the state was issued for, or null when it is forged, altered, or expired. */
  check(state: string, nowMs?: number): Checked | null;
}

const StateBody = z.object({
  h: z.string(),
  exp: z.number(),
  by: z.object({ id: z.string().min(1), kind: CallerKind }).optional(),
  a: z.string().optional(),
});

export function stateSigner(seed: Uint8Array): StateSigner {
  const keys = nacl.sign.keyPair.fromSeed(seed);
  return {
    issue(handle, by, app, nowMs = Date.now()) {
      const n = randomBytes(9).toString('base64url');
      const body = Buffer.from(
        JSON.stringify({
          h: handle,
          exp: nowMs + STATE_TTL_MS,
          n,
          ...(by ? { by: { id: by.id, kind: by.kind } } : {}),
          ...(app !== '' ? { a: app } : {}),
        }),
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
        const v = StateBody.safeParse(JSON.parse(body.toString('utf8')));
        if (!v.success || v.data.exp < nowMs) return null;
        return { handle: v.data.h, by: v.data.by ?? null, app: v.data.a ?? '' };
      } catch {
        return null;
      }
    },
  };
}
