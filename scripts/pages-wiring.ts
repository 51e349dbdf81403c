/**
 * The native knowledge base of one node (`knowledge.backend: native`, ops/knowledge-base.md): the
 * pages projection run by the one runner, the writer answering `svc.cmd.pages.write`, the service the
 * routes and tools share, its routes and its tools. Containers come from the active company document.
 */
import { openDocument } from '../bus/index.js';
import type { Logger } from 'pino';
import { startPagesHost } from '../actors/index.js';
import type { Bus, Kv, Subscription } from '../bus/index.js';
import { knowledgeRoutes, type Actor, type AuthSettings, type RouteDef } from '../http/index.js';
import {
  activeRevision,
  createPagesService,
  knowledgeTools,
  pagesLedger,
  pagesProjection,
  runProjection,
  type ActiveChart,
  type PagesMeaning,
  type PagesService,
  type PagesState,
  type RunningProjection,
} from '../projections/index.js';
import { peopleOf, personFor, type Resolver, type ServiceCaller, type ServiceTool } from '../schema/index.js';
import type { Configuration } from './config-wiring.js';
import { startPageVectorsFill } from './page-vectors-fill.js';
import type { Secrets } from './secrets-wiring.js';

export interface Knowledge {
  readonly service: PagesService;
  readonly projection: RunningProjection<PagesState>;
  /** `/pages*` and `/containers`. */
  readonly routes: RouteDef[];
  /** The knowledge tools for seats and the operator surface. */
  readonly tools: readonly ServiceTool[];
  stop(): Promise<void>;
}

/** The active document (opened with the node's keyring) and its epoch; null before the first revision. */
export function activeChart(configuration: Configuration, secrets: Pick<Secrets, 'keyring'>): ActiveChart {
  return () => {
    const record = activeRevision(configuration.view.state);
    if (!record) return null;
    try {
      return {
        document: openDocument(secrets.keyring, record.payload, record.revision_id),
        epoch: configuration.view.state.active?.epoch ?? 0,
      };
    } catch {
      return null;
    }
  };
}

/**
 * Who a request acts as: a token bound to a human seat (`contact.operator_id`) is that person; another
 * token is itself (`operator`); the caller of a disabled guard is `anonymous`.
 */
export function requestCallers(opts: {
  readonly auth: AuthSettings;
  readonly chart: ActiveChart;
  readonly resolve: Resolver;
}): {
  readonly caller: (actor: Actor | null) => ServiceCaller;
  readonly person: (actor: Actor | null) => ServiceCaller | null;
} {
  const person = (actor: Actor | null): ServiceCaller | null => {
    if (actor?.kind !== 'operator') return null;
    const people = peopleOf(
      opts.chart()?.document ?? null,
      opts.auth.tokens.map((t) => t.id),
      opts.resolve,
    );
    const found = personFor(people, actor.id);
    return found?.handle ? { kind: 'person', id: found.handle, name: found.name } : null;
  };
  return {
    person,
    caller: (actor) =>
      person(actor) ??
      (actor?.kind === 'operator'
        ? { kind: 'operator', id: actor.id, name: null }
        : { kind: 'anonymous', id: 'anonymous', name: null }),
  };
}

export async function startKnowledge(opts: {
  readonly bus: Bus;
  readonly chart: ActiveChart;
  readonly auth: AuthSettings;
  readonly resolve: Resolver;
  readonly logger: Logger;
  /** Search by meaning when `providers.embeddings` is on (ops/knowledge-base.md "Search"). */
  readonly meaning?: PagesMeaning;
  /** With `meaning`: the background fill of page vectors, under a duty in `coord`. */
  readonly fill?: { readonly coord: Kv; readonly nodeId: string };
}): Promise<Knowledge> {
  const callers = requestCallers(opts);
  const projection = await runProjection({
    bus: opts.bus,
    projection: pagesProjection(),
    logger: opts.logger.child({ component: 'projection.pages' }),
  });
  const service = createPagesService({
    bus: opts.bus,
    projection,
    chart: opts.chart,
    ...(opts.meaning ? { meaning: opts.meaning } : {}),
  });
  const host: Subscription = startPagesHost({
    bus: opts.bus,
    ledger: pagesLedger(projection),
    containers: () => service.containers().map((c) => c.key),
    logger: opts.logger.child({ component: 'pages' }),
  });
  const meaning = opts.meaning;
  const fill =
    meaning && opts.fill
      ? startPageVectorsFill({
          ...opts.fill,
          vectors: meaning.vectors,
          embedder: meaning.embedder,
          pages: () => projection.state(),
          logger: opts.logger.child({ component: 'pages' }),
        })
      : null;
  return {
    service,
    projection,
    routes: knowledgeRoutes({ pages: service, caller: callers.caller }),
    tools: knowledgeTools(service),
    async stop() {
      await fill?.stop();
      await host.stop();
      await projection.stop();
      service.state().index.close();
    },
  };
}
