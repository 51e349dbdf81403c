/**
 * The credential pool as the company document alone describes it (no runtime: no cooldowns, nothing
 * in flight). Used by `/credential-pool` until a node runs a live pool; it names keys, never values.
 */
import type { CredentialPoolSnapshot } from './credential-pool.js';

const wholeRef = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** Environment variables read when an entry's `api_keys` is empty (spec "LLM provider entry"). */
export function envFallback(type: string): string | null {
  if (type === 'anthropic') return 'ANTHROPIC_API_KEY';
  if (type === 'openai' || type === 'openai-compatible') return 'OPENAI_API_KEY';
  return null;
}

/** The reference of one `api_keys` entry: its `${VAR}` name when it is exactly one, else its position. */
export function keyRef(value: unknown, index: number): string {
  const match = typeof value === 'string' ? wholeRef.exec(value.trim()) : null;
  return match ? (match[1] as string) : `api_keys[${index}]`;
}

const record = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function credentialPoolFromDocument(document: unknown): CredentialPoolSnapshot {
  const llm = record(record(record(document)?.['providers'])?.['llm']);
  const snapshot: CredentialPoolSnapshot = {};
  for (const [key, raw] of Object.entries(llm ?? {})) {
    const entry = record(raw);
    if (!entry) continue;
    const type = text(entry['type']);
    const written = Array.isArray(entry['api_keys']) ? entry['api_keys'] : [];
    const fallback = envFallback(type);
    const refs = written.length > 0 ? written.map(keyRef) : fallback ? [fallback] : [];
    snapshot[key] = {
      provider: key,
      type,
      model: text(entry['model']),
      keys: refs.map((ref, index) => ({
        ref,
        index,
        cooling_until: null,
        reason: null,
        in_flight: 0,
        failures: 0,
      })),
    };
  }
  return snapshot;
}
