/**
 * The secret store's decisions, free of I/O: what a put stores, and what a rekey re-seals. The host
 * (secrets.host.ts) reads the bucket, asks these, and writes what they answer.
 */
import { open, seal, SealError, type Keyring } from '../../bus/index.js';
import type { StoredSecret } from '../../schema/index.js';
import { secretAad, type ErrorCode, type SecretPut } from '../../schema/index.js';

export type Refusal = { readonly refused: true; readonly error: ErrorCode; readonly detail: string };

const noKeyring: Refusal = {
  refused: true,
  error: 'no_keyring',
  detail: 'The node answering this command has no keyring (secrets.keys), so it cannot seal or open secrets.',
};

/** The record a put stores: the value sealed under the active key, bound to its name. */
export function decidePut(command: SecretPut, keyring: Keyring | null, now: Date): StoredSecret | Refusal {
  if (!keyring) return noKeyring;
  return {
    v: 1,
    name: command.name,
    sealed: seal(keyring, Buffer.from(command.value_b64, 'base64'), secretAad(command.name)),
    key_id: keyring.activeKeyId,
    updated_at: now.toISOString(),
    updated_by: command.actor.id,
    source: command.source,
  };
}

/** A rekey is refused unless it names the active key (or none). */
export function checkRekey(keyId: string | undefined, keyring: Keyring | null): Refusal | null {
  if (!keyring) return noKeyring;
  if (keyId !== undefined && keyId !== keyring.activeKeyId) {
    return {
      refused: true,
      error: 'key_not_active',
      detail: `Records are re-sealed under the active key ${keyring.activeKeyId}, not ${keyId}.`,
    };
  }
  return null;
}

export type RekeyStep =
  | { readonly kind: 'keep' }
  | { readonly kind: 'reseal'; readonly record: StoredSecret }
  | { readonly kind: 'unreadable'; readonly why: string };

/**
 * One record of a rekey: kept when already under the active key, else opened and sealed again under
 * it. The metadata stays as it was (the value did not change), except `key_id`.
 */
export function rekeyStep(record: StoredSecret, keyring: Keyring): RekeyStep {
  if (record.key_id === keyring.activeKeyId) return { kind: 'keep' };
  let value: Buffer;
  try {
    value = open(keyring, record.sealed, secretAad(record.name));
  } catch (error) {
    return { kind: 'unreadable', why: error instanceof SealError ? error.message : 'does not open' };
  }
  return {
    kind: 'reseal',
    record: {
      ...record,
      sealed: seal(keyring, value, secretAad(record.name)),
      key_id: keyring.activeKeyId,
    },
  };
}
