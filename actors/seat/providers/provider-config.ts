/**
 * What the registry reads from a company document: the LLM provider entries, `llm_order`, and each
 * seat's `llm` pin (by handle), from the validated document.
 */
import { walkCompany, type Company, type LlmProvider } from '../../../schema/index.js';

export interface ProviderConfig {
  /** Entry key -> entry, in document order. */
  readonly llm: ReadonlyMap<string, LlmProvider>;
  /** `llm_order`, or every entry in document order when the document gives none. */
  readonly order: readonly string[];
  /** Seat handle -> pinned entry key. */
  readonly pins: ReadonlyMap<string, string>;
}

export function readProviderConfig(company: Company | null): ProviderConfig {
  const providers = company?.providers ?? {};
  const llm = new Map<string, LlmProvider>(Object.entries(providers.llm ?? {}));
  const order = providers.llm_order ?? [...llm.keys()];
  const pins = new Map<string, string>();
  if (company !== null)
    for (const { handle, seat } of walkCompany(company).seats) if (seat.llm) pins.set(handle, seat.llm);
  return { llm, order, pins };
}
