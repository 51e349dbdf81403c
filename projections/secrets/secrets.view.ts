/**
 * One node's secret read model, kept by the runner: the `secrets` projection folds the `svc_secrets`
 * bucket (every record it holds, then every change) and resolves once it holds every record the bucket
 * held when it started.
 */
import type { Logger } from 'pino';
import type { Kv } from '../../bus/index.js';
import { decodeJson } from '../runner/decode-json.js';
import { runProjection, type BucketProjection, type RunningProjection } from '../runner/runner.js';
import { applySecretFact, emptySecretsState, type SecretsState } from './secrets.projection.js';

export interface SecretsView {
  /** The current state (a rebuild replaces it). */
  readonly state: SecretsState;
  /** Resolves true once `predicate` holds (checked on every change), false after `timeoutMs`. */
  until(predicate: (state: SecretsState) => boolean, timeoutMs: number): Promise<boolean>;
  readonly running: RunningProjection<SecretsState>;
  stop(): Promise<void>;
}

/** The `secrets` projection of `bucket`: sealed records only (opening one needs the keyring). */
export function secretsProjection(bucket: Kv): BucketProjection<SecretsState> {
  return {
    name: 'secrets',
    version: 1,
    bucket,
    init: emptySecretsState,
    apply: (state, entry) => {
      applySecretFact(state, {
        key: entry.key,
        revision: entry.revision,
        operation: entry.operation,
        value: entry.operation === 'put' ? decodeJson(entry.value) : null,
      });
    },
  };
}

/** Starts the `secrets` projection; resolves once it holds every record the bucket held when it started. */
export async function followSecrets(opts: { bucket: Kv; logger: Logger }): Promise<SecretsView> {
  const running = await runProjection({ projection: secretsProjection(opts.bucket), logger: opts.logger });
  return {
    get state() {
      return running.state();
    },
    until: (predicate, timeoutMs) => running.when(predicate, timeoutMs),
    running,
    stop: () => running.stop(),
  };
}
