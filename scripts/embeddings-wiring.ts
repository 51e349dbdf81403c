/**
 * Binds `providers.embeddings` (the provider registry's client, read at start) to the seats' personal memory,
 * and records each call's tokens as auxiliary spend (worker `embeddings`) on the seat whose memory it served
 * (ops/providers.md "Embeddings").
 */
import type { Logger } from 'pino';
import {
  recordAuxiliarySpend,
  type EmbeddingsClient,
  type MemoryEmbedder,
  type ProviderRegistry,
} from '../actors/index.js';
import type { Bus } from '../bus/index.js';
import { agentId, Company, walkCompany } from '../schema/index.js';

/** The `worker` of an embeddings call's spend record. */
export const EMBEDDINGS_WORKER = 'embeddings';

interface SpendSeat {
  readonly handle: string;
  readonly agent_id: string;
  readonly role: string;
}

/** Agent id -> seat of an active document, for spend (a seat not found counts in the org's totals only). */
function seatsOf(document: unknown): ReadonlyMap<string, SpendSeat> {
  const parsed = Company.safeParse(document);
  const out = new Map<string, SpendSeat>();
  if (!parsed.success) return out;
  for (const { handle, seat } of walkCompany(parsed.data).seats) {
    const id = agentId(parsed.data.name, handle);
    out.set(id, { handle, agent_id: id, role: seat.name });
  }
  return out;
}

export function memoryEmbedder(opts: {
  readonly providers: Pick<ProviderRegistry, 'embeddings'>;
  readonly bus: Bus;
  readonly nodeId: string;
  /** The active company document (to name the seat a call served), opened only when `epoch` moved. */
  readonly chart: () => { readonly document: unknown } | null;
  readonly epoch: () => number;
  readonly logger: Logger;
}): () => MemoryEmbedder | null {
  let bound: { client: EmbeddingsClient; embedder: MemoryEmbedder } | null = null;
  let seats: { epoch: number; byId: ReadonlyMap<string, SpendSeat> } | null = null;
  const seatOf = (id: string): SpendSeat | undefined => {
    const epoch = opts.epoch();
    if (seats?.epoch !== epoch) seats = { epoch, byId: seatsOf(opts.chart()?.document) };
    return seats.byId.get(id);
  };
  const bind = (client: EmbeddingsClient): MemoryEmbedder => ({
    model: client.model,
    dimensions: client.dimensions,
    async embed(texts, agent) {
      const answer = await client.embed(texts);
      if (answer.inputTokens > 0) {
        const seat = seatOf(agent);
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
    },
  });
  return () => {
    const client = opts.providers.embeddings();
    if (client === null) return null;
    if (bound?.client !== client) bound = { client, embedder: bind(client) };
    return bound.embedder;
  };
}
