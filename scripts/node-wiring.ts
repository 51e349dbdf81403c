/** The node actor started from its own apply history, and the gateway's auth settings from Tier A. */
import type { Logger } from 'pino';
import { readNodeHistory, startNodeHost, type NodeHost } from '../actors/index.js';
import type { Bus, Catalogue } from '../bus/index.js';
import type { AuthSettings } from '../http/index.js';
import { NodeRole, type TierA } from '../schema/index.js';

/** Starts the node actor and replays what it applied and what failed before a restart. */
export async function bootNode(opts: {
  readonly bus: Bus;
  readonly config: TierA;
  readonly catalogue: Pick<Catalogue, 'eventHistorySeconds' | 'spendHistorySeconds'>;
  readonly version: string;
  readonly logger: Logger;
}): Promise<{ node: NodeHost; startedAt: string }> {
  const { bus, config, catalogue, logger } = opts;
  const startedAt = new Date().toISOString();
  const node = startNodeHost(
    {
      node: config.node.id,
      version: opts.version,
      startedAt,
      queue: config.providers.queue.type,
      roles: config.node.roles,
      ingress: config.node.roles.includes(NodeRole.Ingress),
      eventHistorySeconds: catalogue.eventHistorySeconds,
      spendHistorySeconds: catalogue.spendHistorySeconds,
    },
    logger.child({ component: 'node' }),
  );
  // The node's own apply announcements: what it ran and what failed before a restart.
  const history = await readNodeHistory(bus, config.node.id);
  logger.info(
    {
      applied_epoch: history.applied?.epoch ?? 0,
      failed_epoch: history.failed?.epoch ?? null,
      posture: history.failed?.posture ?? null,
    },
    'node history replayed',
  );
  node.send({ type: 'node.booted', history });
  return { node, startedAt };
}

/** Tier A's `api.auth` as the gateway reads it. */
export function authSettingsOf(config: TierA): AuthSettings {
  return {
    disabled: config.api.auth?.disabled ?? false,
    allowAnonymousRead: config.api.auth?.allow_anonymous_read ?? true,
    tokens: config.api.auth?.tokens ?? [],
    ...(config.api.auth?.company_writers ? { companyWriters: config.api.auth.company_writers } : {}),
  };
}
