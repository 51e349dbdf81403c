/**
 * What a restored store needs of the restoring Tier A keyring (ops/backups.md, "What is not in a backup"):
 * the active revision must open, or the node refuses to start on it; stored secrets sealed under a key the
 * keyring lacks, or holds with other material, are kept but do not open (their references fall back to the
 * environment). Only key ids and secret names are ever said, never a value.
 */
import type { Logger } from 'pino';
import {
  Buckets,
  COORD_HISTORY,
  keyringFrom,
  open,
  openDocument,
  SealError,
  heldDocumentKeyId,
  Streams,
  type Bus,
} from '../bus/index.js';
import { activeRevision } from '../projections/index.js';
import { followNodeConfig } from './config-follow.js';
import { secretAad, StoredSecret, type BackupStream, type TierA } from '../schema/index.js';

export interface KeyCheck {
  /** Why the active revision does not open with this keyring, and the fix; null when it opens (or none is active). */
  readonly revision: string | null;
  /** Stored secrets sealed under keys this keyring lacks, by key id (names sorted). */
  readonly secrets: ReadonlyMap<string, readonly string[]>;
  /** Stored secrets under key ids it holds whose material does not open one of them (a regenerated key). */
  readonly wrongMaterial: ReadonlyMap<string, readonly string[]>;
}

/** Reads the restored `bus` (whose streams are `streams`) against the keyring of `config`. */
export async function checkRestoredKeys(
  bus: Bus,
  streams: readonly BackupStream[],
  config: TierA,
  logger: Logger,
): Promise<KeyCheck> {
  const keyring = keyringFrom(config.secrets);
  const held = new Set(streams.map((s) => s.name));
  let revision: string | null = null;
  // Only streams the backup holds are read: opening an absent one would create it in the restored store.
  if (held.has(Streams.Config) && held.has(`KV_${Buckets.Coord}`)) {
    const coord = await bus.kv({ name: Buckets.Coord, history: COORD_HISTORY });
    const view = await followNodeConfig(bus, coord, logger);
    try {
      const active = activeRevision(view.state);
      if (active) {
        try {
          openDocument(keyring, active.payload, active.revision_id);
        } catch (error) {
          if (!(error instanceof SealError)) throw error;
          revision = unopened(active.revision_id, active.payload, keyring, error, config.file);
        }
      }
    } finally {
      await view.stop();
    }
  }
  const secrets = new Map<string, string[]>();
  const inHeldKeys = new Map<string, string[]>();
  const opens = new Map<string, boolean>();
  if (held.has(`KV_${Buckets.Secrets}`)) {
    const bucket = await bus.kv({ name: Buckets.Secrets, history: 16 });
    for (const key of await bucket.keys()) {
      const entry = await bucket.get(key);
      if (!entry) continue;
      let parsed: ReturnType<typeof StoredSecret.safeParse>;
      try {
        parsed = StoredSecret.safeParse(JSON.parse(new TextDecoder().decode(entry.value)));
      } catch {
        continue; // not a record this build reads: the node skips it the same way
      }
      if (!parsed.success) continue;
      const into = keyring?.keys.has(parsed.data.key_id) ? inHeldKeys : secrets;
      into.set(parsed.data.key_id, [...(into.get(parsed.data.key_id) ?? []), parsed.data.name].sort());
      if (into === inHeldKeys && !opens.has(parsed.data.key_id))
        opens.set(parsed.data.key_id, opensWith(keyring, parsed.data));
    }
  }
  // One test-open per held key id: its material opens all its secrets or (a regenerated key) none of them.
  const wrongMaterial = new Map([...inHeldKeys].filter(([keyId]) => opens.get(keyId) === false));
  return { revision, secrets, wrongMaterial };
}

/** Whether `keyring` opens `record` (its value is dropped at once: only the answer is kept). */
function opensWith(keyring: ReturnType<typeof keyringFrom>, record: StoredSecret): boolean {
  try {
    open(keyring, record.sealed, secretAad(record.name)).fill(0);
    return true;
  } catch (error) {
    if (error instanceof SealError) return false;
    throw error;
  }
}

/**
 * A key id the keyring lacks is added back; one it holds with other material (a regenerated key, a `${VAR}`
 * now naming another key) gets the backed-up node's material back: "add the keys" would not say which.
 */
function unopened(
  revisionId: string,
  payload: unknown,
  keyring: ReturnType<typeof keyringFrom>,
  error: SealError,
  file: string | null,
): string {
  const keys = `secrets.keys (${file ?? 'the Tier A file'})`;
  const keyId = heldDocumentKeyId(keyring, payload);
  if (keyId !== null)
    return `the active revision ${revisionId} is sealed under key ${keyId}, and the material secrets.keys gives ${keyId} does not open it: set ${keyId}'s material in ${keys} back to the backed-up node's and restore again`;
  return `the active revision ${revisionId} is ${error.message}: add the keys the backed-up node had to ${keys} and restore again`;
}

/** One line per key id: `key k1 (2 secrets: A, B)`. */
export function describeMissingKeys(secrets: ReadonlyMap<string, readonly string[]>): string {
  return [...secrets.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([keyId, names]) => `key ${keyId} (${names.length} secret(s): ${names.join(', ')})`)
    .join('; ');
}
