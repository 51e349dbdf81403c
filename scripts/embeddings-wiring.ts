/**
 * Binds `providers.embeddings` (the provider registry's client, read at start) to the seats' personal memory
 * and to the knowledge base's search, and records each call's tokens as auxiliary spend (worker `embeddings`)
 * on the seat it served: the seat whose memory, or the seat that searched (none for a person, an operator or
 * a request) (ops/providers.md "Embeddings").
 */
import type { Logger } from 'pino';
import {
  recordAuxiliarySpend,
  type EmbeddingsClient,
  type MemoryEmbedder,
  type ProviderRegistry,
} from '../actors/index.js';
import type { Bus } from '../bus/index.js';
import type { PagesEmbedder } from '../projections/index.js';
import { agentId, Company, walkCompany } from '../schema/index.js';

/** The `worker` of an embeddings call's spend record. */
export const EMBEDDINGS_WORKER = 'embeddings';

interface SpendSeat {
  readonly handle: string;
  readonly agent_id: string;
  readonly role: string;
}

/** Agent id and handle -> seat of an active document (a seat not found counts in the org's totals only). */
function seatsOf(document: unknown): ReadonlyMap<string, SpendSeat> {
  const parsed = Company.safeParse(document);
  const out = new Map<string, SpendSeat>();
  if (!parsed.success) return out;
  for (const { handle, seat } of walkCompany(parsed.data).seats) {
    const id = agentId(parsed.data.name, handle);
    const spendSeat = { handle, agent_id: id, role: seat.name };
    out.set(id, spendSeat);
    out.set(`@${handle}`, spendSeat);
  }
  return out;
}

interface BindOptions {
  readonly providers: Pick<ProviderRegistry, 'embeddings'>;
  readonly bus: Bus;
  readonly nodeId: string;
  /** The active company document (to name the seat a call served), opened only when `epoch` moved. */
  readonly chart: () => { readonly document: unknown } | null;
  readonly epoch: () => number;
  readonly logger: Logger;
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
  let seats: { epoch: number; byKey: ReadonlyMap<string, SpendSeat> } | null = null;
  const seatOf = (key: string): SpendSeat | undefined => {
    const epoch = opts.epoch();
    if (seats?.epoch !== epoch) seats = { epoch, byKey: seatsOf(opts.chart()?.document) };
    return seats.byKey.get(key);
  };
  const embedWith =
    (client: EmbeddingsClient) =>
    async (texts: readonly string[], seatKey: string | null): Promise<Float32Array[]> => {
      const answer = await client.embed(texts);
      if (answer.inputTokens > 0) {
        const seat = seatKey === null ? undefined : seatOf(seatKey);
        // Spend is bookkeeping: its failure does not take the vectors away.
        await recordAuxiliarySpend(
          { bus: opts.bus, node: opts.nodeId },
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
