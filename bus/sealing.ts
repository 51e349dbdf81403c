/**
 * Sealing secrets at rest (spec "Authentication" 10): AES-256-GCM with a 12-byte random nonce and a
 * 16-byte tag, the record's identity as associated data (a ciphertext moved to another record fails
 * to open), written as `enc:v1:<key_id>:<base64(nonce || ciphertext || tag)>`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const PREFIX = 'enc:v1:';

export interface Keyring {
  readonly activeKeyId: string;
  readonly keys: ReadonlyMap<string, Buffer>;
}

export class SealError extends Error {
  override name = 'SealError';
}

/** Builds a keyring from Tier A `secrets` (already validated: base64 of 32 bytes, active key listed). */
export function keyringFrom(
  secrets: { active_key_id?: string; keys: ReadonlyArray<{ id: string; material: string }> } | undefined,
): Keyring | null {
  if (!secrets || secrets.keys.length === 0 || !secrets.active_key_id) return null;
  const keys = new Map<string, Buffer>();
  for (const key of secrets.keys) {
    const material = Buffer.from(key.material.trim(), 'base64');
    if (material.length !== KEY_BYTES) throw new SealError(`key ${key.id}: material must be 32 bytes`);
    keys.set(key.id, material);
  }
  if (!keys.has(secrets.active_key_id))
    throw new SealError(`active key ${secrets.active_key_id} is not in the keyring`);
  return { activeKeyId: secrets.active_key_id, keys };
}

/** AES-256-GCM open of raw parts; refuses any tag that is not exactly 16 bytes. */
export function gcmOpen(key: Buffer, nonce: Buffer, ciphertext: Buffer, tag: Buffer, aad: Buffer): Buffer {
  if (key.length !== KEY_BYTES) throw new SealError('key must be 32 bytes');
  if (tag.length !== TAG_BYTES) throw new SealError('authentication tag must be 16 bytes');
  if (nonce.length === 0) throw new SealError('nonce must not be empty');
  // authTagLength pins the tag size: without it Node accepts a truncated tag.
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch (error) {
    throw new SealError('sealed value does not open (wrong key, wrong record, or tampered)', {
      cause: error,
    });
  }
}

/** Seals `plaintext` under the active key for the record named by `aad`. */
export function seal(keyring: Keyring, plaintext: string | Buffer, aad: string): string {
  const key = keyring.keys.get(keyring.activeKeyId) as Buffer;
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const blob = Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString('base64');
  return `${PREFIX}${keyring.activeKeyId}:${blob}`;
}

/** The key id a sealed value names, or null when the text is not a sealed value. */
export function sealedKeyId(text: string): string | null {
  if (!text.startsWith(PREFIX)) return null;
  const rest = text.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  return colon > 0 ? rest.slice(0, colon) : null;
}

/** Opens a sealed value for the record named by `aad`; a missing key names its id. */
export function open(keyring: Keyring | null, text: string, aad: string): Buffer {
  const keyId = sealedKeyId(text);
  if (keyId === null) throw new SealError('not a sealed value (expected enc:v1:<key_id>:<base64>)');
  const key = keyring?.keys.get(keyId);
  if (!key) throw new SealError(`sealed under key ${keyId}, which this node's keyring does not hold`);
  const raw = Buffer.from(text.slice(PREFIX.length + keyId.length + 1), 'base64');
  if (raw.length < NONCE_BYTES + TAG_BYTES) throw new SealError('sealed value is truncated');
  return gcmOpen(
    key,
    raw.subarray(0, NONCE_BYTES),
    raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES),
    raw.subarray(raw.length - TAG_BYTES),
    Buffer.from(aad, 'utf8'),
  );
}

/** Associated data binding a sealed document to its revision: moved to another record, it fails to open. */
const revisionAad = (revisionId: string): string => `svc:revision:${revisionId}`;

/** The stored form of a document under a keyring: `{"__encrypted__": "enc:v1:<key_id>:<base64>"}`. */
export function sealDocument(
  keyring: Keyring,
  document: unknown,
  revisionId: string,
): { __encrypted__: string } {
  return { __encrypted__: seal(keyring, JSON.stringify(document), revisionAad(revisionId)) };
}

/**
 * Opens a stored revision payload: a plain document is returned as is; a sealed one is decrypted, or
 * SealError names the key this node lacks.
 */
export function openDocument(keyring: Keyring | null, payload: unknown, revisionId: string): unknown {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return payload;
  const sealed = (payload as Record<string, unknown>)['__encrypted__'];
  if (typeof sealed !== 'string' || Object.keys(payload).length !== 1) return payload;
  return JSON.parse(open(keyring, sealed, revisionAad(revisionId)).toString('utf8')) as unknown;
}

/**
 * The key id a sealed revision payload names when `keyring` holds it: such a payload that does not open
 * was sealed under other material of that id (a regenerated key), not under a key the keyring lacks.
 */
export function heldDocumentKeyId(keyring: Keyring | null, payload: unknown): string | null {
  if (payload === null || typeof payload !== 'object') return null;
  const sealed = (payload as Record<string, unknown>)['__encrypted__'];
  const keyId = typeof sealed === 'string' ? sealedKeyId(sealed) : null;
  return keyId !== null && keyring?.keys.has(keyId) ? keyId : null;
}
