/**
 * What the registry reads from a company document: the LLM provider entries, `llm_order`, and each
 * seat's `llm` pin (by handle). The document was validated before activation, so an entry that does
 * not parse here is skipped rather than failing the apply.
 */
import { LlmProvider, seatIdentity } from '../../../schema/index.js';
import { isRecord } from '../../../schema/index.js';

export interface ProviderConfig {
  /** Entry key -> entry, in document order. */
  readonly llm: ReadonlyMap<string, LlmProvider>;
  /** `llm_order`, or every entry in document order when the document gives none. */
  readonly order: readonly string[];
  /** Seat handle -> pinned entry key. */
  readonly pins: ReadonlyMap<string, string>;
  /** Entry keys present but unreadable. */
  readonly skipped: readonly string[];
}

export function readProviderConfig(document: unknown): ProviderConfig {
  const doc = isRecord(document) ? document : {};
  const providers = isRecord(doc['providers']) ? doc['providers'] : {};
  const llm = new Map<string, LlmProvider>();
  const skipped: string[] = [];
  for (const [key, raw] of Object.entries(isRecord(providers['llm']) ? providers['llm'] : {})) {
    const parsed = LlmProvider.safeParse(raw);
    if (parsed.success) llm.set(key, parsed.data);
    else skipped.push(key);
  }
  const written = providers['llm_order'];
  const order = Array.isArray(written)
    ? written.filter((k): k is string => typeof k === 'string')
    : [...llm.keys()];

  const pins = new Map<string, string>();
  const visitSeats = (seats: unknown): void => {
    if (!Array.isArray(seats)) return;
    for (const seat of seats) {
      const handle = seatIdentity(seat);
      if (handle && isRecord(seat) && typeof seat['llm'] === 'string' && seat['llm'] !== '') {
        pins.set(handle, seat['llm']);
      }
    }
  };
  const visitUnits = (units: unknown): void => {
    if (!Array.isArray(units)) return;
    for (const unit of units) {
      if (!isRecord(unit)) continue;
      visitSeats(unit['roles']);
      visitUnits(unit['children']);
    }
  };
  visitSeats(doc['roles']);
  visitUnits(doc['units']);
  return { llm, order, pins, skipped };
}
