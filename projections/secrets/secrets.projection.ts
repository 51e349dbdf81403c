/**
 * The secret store's read model: the newest record of every name in `svc_secrets`, tombstones
 * included, so a late or repeated fact never brings back a deleted name or an older value. It holds
 * sealed values only; opening one is the reader's business (it needs the keyring).
 */
import { StoredSecret, type SecretMeta } from '../../schema/index.js';

export interface SecretsState {
  /** Per name: the newest bucket revision seen and its record (null once deleted). */
  readonly entries: Map<string, { revision: number; record: StoredSecret | null }>;
  /** Changes with every fact folded, across rebuilds too: readers that cache what they resolved compare it. */
  stamp: number;
}

export function emptySecretsState(): SecretsState {
  return { entries: new Map(), stamp: nextStamp() };
}

// One counter for the process, so a rebuilt state never reads the stamp a reader cached from the old one.
let stamps = 0;
const nextStamp = (): number => (stamps += 1);

/** One change of the bucket, already decoded. */
export interface SecretFact {
  readonly key: string;
  readonly revision: number;
  readonly operation: 'put' | 'delete';
  readonly value: unknown;
}

/** Folds a fact in place; an older revision than the one held is ignored; a malformed value reads as absent. */
export function applySecretFact(state: SecretsState, fact: SecretFact): SecretsState {
  const held = state.entries.get(fact.key);
  if (held && held.revision >= fact.revision) return state;
  const parsed = fact.operation === 'put' ? StoredSecret.safeParse(fact.value) : null;
  const record = parsed?.success && parsed.data.name === fact.key ? parsed.data : null;
  state.entries.set(fact.key, { revision: fact.revision, record });
  state.stamp = nextStamp();
  return state;
}

export const metaOfSecret = (record: StoredSecret): SecretMeta => ({
  name: record.name,
  key_id: record.key_id,
  updated_at: record.updated_at,
  updated_by: record.updated_by,
  source: record.source,
});

/** Every stored name with its metadata, by name. */
export function listSecrets(state: SecretsState): SecretMeta[] {
  return [...state.entries.values()]
    .flatMap((entry) => (entry.record ? [metaOfSecret(entry.record)] : []))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function secretRecord(state: SecretsState, name: string): StoredSecret | null {
  return state.entries.get(name)?.record ?? null;
}
