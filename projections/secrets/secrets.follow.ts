/**
 * Keeps one node's secret read model current by watching the `svc_secrets` bucket. The watch starts
 * first (initial values, then live changes); a listing read afterwards tells when the model has caught
 * up with everything stored before it began.
 */
import type { Logger } from 'pino';
import type { Kv, KvEntry, Subscription } from '../../bus/index.js';
import { applySecretFact, emptySecretsState, type SecretsState } from './secrets.projection.js';
import { Waiters } from '../runner/waiters.js';

export interface SecretsView {
  readonly state: SecretsState;
  /** Resolves true once `predicate` holds (checked on every change), false after `timeoutMs`. */
  until(predicate: (state: SecretsState) => boolean, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

function decode(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return null;
  }
}

/** Starts following; resolves once the model holds every record the bucket held when it started. */
export async function followSecrets(opts: { bucket: Kv; logger: Logger }): Promise<SecretsView> {
  const state = emptySecretsState();
  const waiters = new Waiters(state);
  const apply = (entry: KvEntry): void => {
    applySecretFact(state, {
      key: entry.key,
      revision: entry.revision,
      operation: entry.operation,
      value: entry.operation === 'put' ? decode(entry.value) : null,
    });
    waiters.wake();
  };
  const watch: Subscription = await opts.bucket.watch(apply, { initial: true });
  // The watch may still be delivering its initial values: fold the current ones in directly (the
  // reducer keeps the newest revision per name, so doing both is harmless).
  for (const key of await opts.bucket.keys()) {
    const entry = await opts.bucket.get(key);
    if (entry) apply(entry);
  }
  opts.logger.debug({ names: state.entries.size }, 'secret store read model caught up');

  return {
    state,
    until: (predicate, timeoutMs) => waiters.until(predicate, timeoutMs),
    async stop() {
      await watch.stop();
      waiters.clear();
    },
  };
}
