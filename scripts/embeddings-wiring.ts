/**
 * Binds `providers.embeddings` (the provider registry's client, read at start) to the seats' personal memory
 * and to the knowledge base's search, and records each call's tokens as auxiliary spend (worker `embeddings`)
 * on the seat it served: the seat whose memory, or the seat that searched (none for a person, an operator or
 * a request), after the token budgets that spend counts against (org, and that seat's) are checked: a call
 * they refuse is not made, and memory and search fall back to words as on any failed call
 * (ops/providers.md "Embeddings").
 */
import type { Logger } from 'pino';
import {
  recordAuxiliarySpend,
  type Budget,
  type BudgetRefusal,
  type EmbeddingsClient,
  type MemoryEmbedder,
  type ProviderRegistry,
} from '../actors/index.js';
import type { Bus } from '../bus/index.js';
import type { BudgetReport, PagesEmbedder } from '../projections/index.js';
import { agentId, Company, walkCompany } from '../schema/index.js';

/** The `worker` of an embeddings call's spend record. */
export const EMBEDDINGS_WORKER = 'embeddings';

interface SpendSeat {
  readonly handle: string;
  readonly agent_id: string;
  readonly role: string;
}

interface Chart {
  /** Agent id and `@handle` -> the seat and its `token_budget` (0: none). */
  readonly byKey: ReadonlyMap<string, { readonly seat: SpendSeat; readonly cap: number }>;
  /** The org's `token_budget` (0: none). */
  readonly orgCap: number;
}

/** The seats and budgets of an active document (a seat not found counts in the org's totals only). */
function chartOf(document: unknown): Chart {
  const parsed = Company.safeParse(document);
  const byKey = new Map<string, { seat: SpendSeat; cap: number }>();
  if (!parsed.success) return { byKey, orgCap: 0 };
  for (const { handle, seat } of walkCompany(parsed.data).seats) {
    const id = agentId(parsed.data.name, handle);
    const entry = { seat: { handle, agent_id: id, role: seat.name }, cap: seat.token_budget ?? 0 };
    byKey.set(id, entry);
    byKey.set(`@${handle}`, entry);
  }
  return { byKey, orgCap: parsed.data.token_budget ?? 0 };
}

/** A call a token budget refused: thrown like a provider's failure, so callers fall back to words. */
class EmbeddingsBudgetRefused extends Error {
  readonly kind = 'budget_exhausted';
  constructor(refusal: BudgetRefusal) {
    super(
      `not called: the ${refusal.scope} token budget is exhausted (${refusal.used} of ${refusal.cap} tokens ` +
        `from ${refusal.window_start})`,
    );
  }
}

interface BindOptions {
  readonly providers: Pick<ProviderRegistry, 'embeddings'>;
  readonly bus: Bus;
  readonly nodeId: string;
  /** The active company document (to name the seat a call served), opened only when `epoch` moved. */
  readonly chart: () => { readonly document: unknown } | null;
  readonly epoch: () => number;
  readonly logger: Logger;
  /** The token budgets: the seats runtime's, or on a node without seats its spend ledger's (ledgerBudget). */
  readonly budget?: () => BudgetCheck | null;
}

export type BudgetCheck = Pick<Budget, 'check' | 'count'>;

/**
 * The budgets as the node's spend ledger counts them, for a node that runs no seats (and so has no budget
 * count of its own): the same records, followed a moment behind. `count` has nothing to do: the ledger reads
 * every stored record. `report` is the read models' `/budgets` answer.
 */
export function ledgerBudget(report: () => BudgetReport): BudgetCheck {
  const refusal = (
    scope: 'org' | 'seat',
    m: BudgetReport['org'],
    window: BudgetReport['window'],
  ): BudgetRefusal => ({
    scope,
    cap: m.cap,
    used: m.used,
    window_start: window.start,
    window_end: window.end,
  });
  return {
    check(handle, caps) {
      // Summing the month's spend is work: none when nothing is capped.
      if (caps.org <= 0 && caps.seat <= 0) return Promise.resolve(null);
      const { org, seats, window } = report();
      if (caps.org > 0 && org.refused) return Promise.resolve(refusal('org', org, window));
      const seat = caps.seat > 0 ? seats.find((s) => s.handle === handle) : undefined;
      return Promise.resolve(seat?.refused ? refusal('seat', seat, window) : null);
    },
    count: () => undefined,
  };
}

/**
 * The registry's client as `bind` shapes it, rebound when the client changes; `embed` records the call's
 * spend on the seat `seatKey` names (an agent id, or `@handle`), or on none.
 */
function boundEmbedder<E>(
  opts: BindOptions,
  bind: (
    client: EmbeddingsClient,
    embed: (texts: readonly string[], seatKey: string | null) => Promise<Float32Array[]>,
  ) => E,
): () => E | null {
  let bound: { client: EmbeddingsClient; embedder: E } | null = null;
  let chart: { epoch: number; read: Chart } | null = null;
  const currentChart = (): Chart => {
    const epoch = opts.epoch();
    if (chart?.epoch !== epoch) chart = { epoch, read: chartOf(opts.chart()?.document) };
    return chart.read;
  };
  const embedWith =
    (client: EmbeddingsClient) =>
    async (texts: readonly string[], seatKey: string | null): Promise<Float32Array[]> => {
      const { byKey, orgCap } = currentChart();
      const served = seatKey === null ? undefined : byKey.get(seatKey);
      const seat = served?.seat;
      const budget = opts.budget?.() ?? null;
      const refusal = await budget?.check(seat?.handle ?? '', { org: orgCap, seat: served?.cap ?? 0 });
      if (refusal) throw new EmbeddingsBudgetRefused(refusal);
      const answer = await client.embed(texts);
      if (answer.inputTokens > 0) {
        // Spend is bookkeeping: its failure does not take the vectors away.
        await recordAuxiliarySpend(
          { bus: opts.bus, node: opts.nodeId, ...(budget ? { budget } : {}) },
          {
            worker: EMBEDDINGS_WORKER,
            provider: EMBEDDINGS_WORKER,
            model: answer.model,
            input_tokens: answer.inputTokens,
            output_tokens: 0,
            ...(seat ? { seat } : {}),
          },
        ).catch((error: unknown) => opts.logger.error({ err: error }, 'embeddings spend not recorded'));
      }
      return answer.vectors;
    };
  return () => {
    const client = opts.providers.embeddings();
    if (client === null) return null;
    if (bound?.client !== client) bound = { client, embedder: bind(client, embedWith(client)) };
    return bound.embedder;
  };
}

export function memoryEmbedder(opts: BindOptions): () => MemoryEmbedder | null {
  return boundEmbedder(opts, (client, embed) => ({
    model: client.model,
    dimensions: client.dimensions,
    minSimilarity: client.minSimilarity,
    embed: (texts, agent) => embed(texts, agent),
  }));
}

/** The knowledge base's search: a seat's search is spent on that seat, any other on none. */
export function pagesEmbedder(opts: BindOptions): () => PagesEmbedder | null {
  return boundEmbedder(opts, (client, embed) => ({
    model: client.model,
    dimensions: client.dimensions,
    minSimilarity: client.minSimilarity,
    embed: (texts, caller) => embed(texts, caller?.kind === 'seat' ? `@${caller.id}` : null),
  }));
}
