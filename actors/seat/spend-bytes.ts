/**
 * Spend records as message bodies, remembered by what was built: the bytes (while they live) and the text
 * (the newest few), so a reader in this process takes back the typed record instead of decoding and checking
 * what it built itself. Apart from spend.ts so the budget follow can read it without an import circle.
 */
import type { SpendRecord } from '../../schema/index.js';

const encoder = new TextEncoder();
/** The records behind the bytes `spendBytes` made, while those bytes live. */
const built = new WeakMap<Uint8Array, SpendRecord>();
/**
 * The records behind the texts `spendBytes` made, the newest `TEXTS_KEPT`: their copies come back from
 * the stream within moments (to the budget's follow), as other bytes of the same text.
 */
const builtTexts = new Map<string, SpendRecord>();
const TEXTS_KEPT = 256;

/**
 * A spend record's message body. A wrapper of the bus that reads what was published (the metrics) takes
 * the record back with `builtSpend` instead of decoding and checking what this process built and typed;
 * a reader of the stream, with `builtSpendText` from the text of what it read.
 */
export function spendBytes(record: SpendRecord): Uint8Array {
  const text = JSON.stringify(record);
  const data = encoder.encode(text);
  built.set(data, record);
  builtTexts.set(text, record);
  if (builtTexts.size > TEXTS_KEPT) builtTexts.delete(builtTexts.keys().next().value as string);
  return data;
}

/** The record `spendBytes` made `text` of, lately; undefined for a text from anywhere else. */
export function builtSpendText(text: string): SpendRecord | undefined {
  return builtTexts.get(text);
}

/** The record `spendBytes` made `data` of; undefined for bytes from anywhere else. */
export function builtSpend(data: Uint8Array): SpendRecord | undefined {
  return built.get(data);
}
