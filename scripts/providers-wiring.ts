/**
 * Wires the LLM provider registry into a node: it is the `providers` subsystem of every apply, and its
 * `provider_fallback` records are published through the admission check (a seat publishes `llm_unavailable`).
 */
import type { Logger } from 'pino';
import { createProviderRegistry, type ProviderRegistry } from '../actors/index.js';
import { publishEvent, type Bus } from '../bus/index.js';
import type { EventRecord, Resolver } from '../schema/index.js';

export function startProviders(opts: {
  bus: Bus;
  nodeId: string;
  logger: Logger;
  /** `${VAR}` lookup for `api_keys` (secret store, then environment). */
  resolve: Resolver;
  /** Wall clock in ms for cooldowns and `retry_at` (tests inject one); `Date.now` otherwise. */
  now?: () => number;
}): ProviderRegistry {
  const logger = opts.logger.child({ component: 'providers' });
  const publish = (record: EventRecord): void => {
    // A seat publishes its own `llm_unavailable` with its turn and phase (the registry's would repeat it).
    if (record.type === 'llm_unavailable') return;
    publishEvent(opts.bus, record).catch((error: unknown) =>
      logger.error({ err: error, type: record.type }, 'provider event not published'),
    );
  };
  // Starts empty: the first apply brings the active document's providers.
  return createProviderRegistry({
    document: null,
    resolve: opts.resolve,
    onEvent: publish,
    logger,
    source: `${opts.nodeId}/providers`,
    ...(opts.now ? { now: opts.now } : {}),
  });
}
