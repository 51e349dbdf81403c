/**
 * Fail closed before the body is read. A receiver without its secret answers 503, and a delivery without
 * its credential header 401, from the headers alone: an unauthenticated sender cannot make the node read
 * and hold up to 25 MiB. A delivery that carries a credential is read whole and verified as before (the
 * handler asks the gate again, so a secret removed meanwhile still answers 503).
 */
import type { Logger } from 'pino';
import type { ApiReply, RequestHead } from '../types.js';
import { notConfigured, refused, type ReceiverDeps } from './receiver.js';
import type { Refusal } from './verify.js';

export type Credential =
  { readonly ok: true; readonly value: string } | { readonly ok: false; readonly what: string };

export interface Gate {
  /** Surface name for counts: `tracker-a`, `codehost-a/{handle}`, ... */
  surface(req: RequestHead, deps: ReceiverDeps): string;
  /** The secret or token to verify with, or what is missing (words for the 503). */
  credential(deps: ReceiverDeps, req: RequestHead): Credential;
  /** Why the delivery cannot be verified from its headers alone (its credential is absent), else null. */
  absent(req: RequestHead): Refusal | null;
}

/** A configured credential, or what is unset. */
export const credential = (value: string | null, what: string): Credential =>
  value === null ? { ok: false, what } : { ok: true, value };

/** How the 503 names a block with an `enabled` switch that is absent or off. */
export const SWITCHED_OFF = 'is unset or switched off (enabled: false)';

/**
 * A block's credential, or words for the 503: the block itself when it is absent or switched off, else the
 * secret it lacks (a switched-off block keeps its secret: naming that would send the operator after one set).
 */
export const blockCredential = (
  block: { readonly configured: boolean; readonly secret: string | null },
  name: string,
  secret = `${name}.webhook_secret`,
  off = 'is unset',
): Credential => credential(block.secret, block.configured ? `${secret} is unset` : `${name} ${off}`);

const blank = (value: string | undefined): boolean => value === undefined || value.trim() === '';

/** The credential travels in header `name` (a signature by default). */
export const inHeader =
  (name: string, reason: Refusal = 'missing_signature') =>
  (req: RequestHead): Refusal | null =>
    blank(req.headers[name]) ? reason : null;

/** The route's `beforeBody`: 503 without the secret, 401 without the credential header, else read on. */
export function failClosed(
  deps: ReceiverDeps,
  gate: Gate,
): (req: RequestHead, log: Logger) => ApiReply | void {
  return (req, log) => {
    const surface = gate.surface(req, deps);
    const secret = gate.credential(deps, req);
    if (!secret.ok) return notConfigured(deps, { log }, surface, secret.what);
    const reason = gate.absent(req);
    if (reason !== null) refused(deps, { log }, surface, reason);
    return undefined;
  };
}
