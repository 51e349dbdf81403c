/**
 * `${VAR}` resolution from the secret store (spec "Tier B company document": the encrypted store first
 * when a keyring is configured and holds the name, then the process environment, else empty).
 */
import { open, type Keyring } from '../../bus/index.js';
import { chainResolvers, secretAad, type Resolver } from '../../schema/index.js';
import { secretRecord, type SecretsState } from './secrets.projection.js';

/**
 * Answers a name from the store's read model, opened with `keyring`; unanswered without a keyring, for
 * an unset name, or when the record does not open here (`onUnreadable` is told the name, never a value).
 */
export function storeResolver(
  state: () => SecretsState,
  keyring: Keyring | null,
  onUnreadable: (name: string, keyId: string) => void = () => undefined,
): Resolver {
  return (name) => {
    if (!keyring) return undefined;
    const record = secretRecord(state(), name);
    if (!record) return undefined;
    try {
      return open(keyring, record.sealed, secretAad(name)).toString('utf8');
    } catch {
      onUnreadable(name, record.key_id);
      return undefined;
    }
  };
}

/** The runtime resolver: the store, then `env`; `substituteRefs` turns an unanswered name into ''. */
export function secretsThenEnv(store: Resolver, env: Readonly<Record<string, string | undefined>>): Resolver {
  return chainResolvers(store, (name) => env[name]);
}
