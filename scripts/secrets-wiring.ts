/**
 * The secret store of one node: the actor host answering `svc.cmd.secrets.*` (the only writer of
 * `svc_secrets`), the read model following the bucket, and the `${VAR}` resolver (store, then
 * environment) the runtime substitutes document references with.
 */
import { keyringFrom, type Keyring } from '../bus/index.js';
import type { Logger } from 'pino';
import { startSecretsHost } from '../actors/index.js';
import type { Bus, Kv, Subscription } from '../bus/index.js';
import { secretsRoutes, type AuthSettings, type RouteDef } from '../http/index.js';
import { followSecrets, secretsThenEnv, storeResolver, type SecretsView } from '../projections/index.js';
import { type Resolver, type TierA } from '../schema/index.js';

export interface Secrets {
  readonly view: SecretsView;
  readonly keyring: Keyring | null;
  /** `${VAR}` resolution for the company document: store first (with a keyring), then the environment. */
  readonly resolve: Resolver;
  /** Changes whenever a stored secret does: what `resolve` answers may have changed. */
  readonly stamp: () => number;
  /** Whether the store answers `name` (its value is a secret, never shown); false: the environment's or none. */
  readonly secret: (name: string) => boolean;
  /** The `/secrets` routes over this store. */
  routes(auth: AuthSettings): RouteDef[];
  stop(): Promise<void>;
}

export async function startSecrets(opts: {
  bus: Bus;
  bucket: Kv;
  config: TierA;
  logger: Logger;
  env?: Readonly<Record<string, string | undefined>>;
}): Promise<Secrets> {
  const { bus, bucket, config, logger } = opts;
  const keyring = keyringFrom(config.secrets);
  const view = await followSecrets({ bucket, logger: logger.child({ component: 'secrets.view' }) });
  warnUnopenable(view, keyring, logger);
  const host: Subscription = startSecretsHost({
    bus,
    bucket,
    keyring,
    logger: logger.child({ component: 'secrets' }),
  });
  // Told once per name and key, so a reference resolved on every apply does not flood the log.
  const told = new Set<string>();
  const store = storeResolver(
    () => view.state,
    keyring,
    (name, keyId) => {
      if (told.has(`${name}:${keyId}`)) return;
      told.add(`${name}:${keyId}`);
      logger.warn(
        { event: 'secret_unreadable', name, key_id: keyId },
        'a stored secret does not open on this node; the environment answers for it',
      );
    },
  );
  return {
    view,
    keyring,
    resolve: secretsThenEnv(store, opts.env ?? process.env),
    stamp: () => view.state.stamp,
    secret: (name) => store(name) !== undefined,
    routes: (auth: AuthSettings) =>
      secretsRoutes({
        bus,
        keyring,
        auth,
        state: () => view.state,
        until: (predicate, timeoutMs) => view.until(predicate, timeoutMs),
      }),
    async stop() {
      await host.stop();
      await view.stop();
    },
  };
}

/** Says at boot which stored names this node cannot open (their key is not in its keyring). */
function warnUnopenable(view: SecretsView, keyring: Keyring | null, logger: Logger): void {
  const records = [...view.state.entries.values()].flatMap((e) => (e.record ? [e.record] : []));
  const lacking = records.filter((r) => !keyring?.keys.has(r.key_id));
  if (lacking.length === 0) return;
  logger.warn(
    {
      event: 'secret_keys_missing',
      names: lacking.map((r) => r.name).sort(),
      key_ids: [...new Set(lacking.map((r) => r.key_id))].sort(),
    },
    keyring
      ? 'stored secrets are sealed under keys this node lacks; references to them resolve from the environment'
      : 'the secret store holds values but this node has no keyring; references resolve from the environment',
  );
}
