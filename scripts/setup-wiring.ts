/**
 * The setup routes of one node: `${VAR}` look-ups (store, then environment), sealing through the
 * secret store's commands, config writes through the config writer, and the
 * provisioning host that remembers this node's passes.
 */
import type { Logger } from 'pino';
import { createPassHost } from '../actors/index.js';
import { sendCommand, type Bus } from '../bus/index.js';
import { ApiError, setupRoutes, type AuthSettings, type RouteDef } from '../http/index.js';
import { activeRevision, storeResolver } from '../projections/index.js';
import {
  Commands,
  keyringFrom,
  openDocument,
  type LookupAnswer,
  type SecretDelete,
  type SecretPut,
  type TierA,
} from '../schema/index.js';
import type { Configuration } from './config-wiring.js';
import type { Secrets } from './secrets-wiring.js';

/** Where the public base URL is read from (ops/setup.md): a variable in the secret store or environment. */
export const PUBLIC_BASE_URL_VARIABLE = 'SVC_PUBLIC_BASE_URL';

export function setupRoutesFor(opts: {
  bus: Bus;
  config: TierA;
  configuration: Configuration;
  secrets: Secrets;
  auth: AuthSettings;
  logger: Logger;
  env?: Readonly<Record<string, string | undefined>>;
}): RouteDef[] {
  const { bus, config, configuration, secrets } = opts;
  const env = opts.env ?? process.env;
  const keyring = keyringFrom(config.secrets);
  const store = storeResolver(() => secrets.view.state, secrets.keyring);

  /** Sends one secrets command; a refusal becomes its catalogued error; resolves once this node's view has it. */
  async function command(
    ...[cmd, body]: [typeof Commands.secrets.put, SecretPut] | [typeof Commands.secrets.delete, SecretDelete]
  ): Promise<boolean> {
    const reply = await sendCommand(bus, cmd, body);
    if (reply.outcome === 'refused') throw new ApiError(reply.error, { detail: reply.detail });
    if (reply.removed !== false)
      await secrets.view.until((s) => (s.entries.get(body.name)?.revision ?? 0) >= reply.revision, 5_000);
    return reply.removed ?? true;
  }

  return setupRoutes({
    state: () => configuration.view.state,
    openPayload: (record) => openDocument(keyring, record.payload, record.revision_id),
    untilEpoch: (epoch, timeoutMs) =>
      configuration.view.until(
        (state) => (state.active?.epoch ?? 0) >= epoch && activeRevision(state) !== null,
        timeoutMs,
      ),
    bus,
    auth: opts.auth,
    nodeId: config.node.id,
    hasKeyring: keyring !== null,
    lookup: (name) => {
      const stored = store(name);
      const answer: LookupAnswer | null =
        stored !== undefined
          ? { source: 'store', value: stored }
          : env[name] !== undefined
            ? { source: 'environment', value: env[name] }
            : null;
      return Promise.resolve(answer);
    },
    seal: async (name, value, actor) => {
      const put: SecretPut = {
        name,
        value_b64: Buffer.from(value, 'utf8').toString('base64'),
        source: 'setup',
        actor: { id: actor, kind: 'operator' },
      };
      await command(Commands.secrets.put, put);
    },
    unseal: (name, actor) =>
      command(Commands.secrets.delete, { name, actor: { id: actor, kind: 'operator' } }),
    passes: createPassHost({
      nodeId: config.node.id,
      logger: opts.logger.child({ component: 'setup.passes' }),
    }),
    publicBaseReference: PUBLIC_BASE_URL_VARIABLE,
  });
}
