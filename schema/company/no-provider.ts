/**
 * Agent seats a document leaves with no provider chain because `providers.llm` holds no entry: each is a
 * `no_provider` warning at its `llm` on every write, dry run and reload, naming the seat (ops/config.md
 * "Seats without a provider"). Stored still: the spec asks no seat to have a provider, and a company is often
 * written before its providers; the seat's turns then fail `llm_unavailable`. With providers written, an
 * unpinned seat whose `llm_order` is empty is admission rule A4 (admission.ts), and a pin naming no provider
 * a problem (rules-seats.ts), so those are not warned twice.
 */
import type { Segment } from './problems.js';
import { isRecord, type Walk } from './walk.js';

export interface NoProvider {
  readonly segments: Segment[];
  readonly message: string;
}

export function seatsWithoutProvider(doc: Record<string, unknown>, walk: Walk): NoProvider[] {
  const providers = isRecord(doc['providers']) ? doc['providers'] : {};
  const llm = providers['llm'];
  if (isRecord(llm) && Object.keys(llm).length > 0) return [];
  const written = Array.isArray(providers['llm_order']) && providers['llm_order'].length === 0;
  return walk.seats
    .filter((seat) => seat.kind === 'agent' && seat.raw['llm'] === undefined)
    .map((seat) => ({
      segments: [...seat.segments, 'llm'],
      message: `no provider resolves: providers.llm has no entry${
        written ? ' and providers.llm_order is empty' : ''
      }, so every turn of this agent seat fails llm_unavailable; add a provider to providers.llm`,
    }));
}
