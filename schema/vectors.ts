/**
 * Embedding vectors as the services keep them (personal memory rows, page vectors): float32 little-endian
 * in base64, compared by cosine similarity; and the one-line-per-kind log of a failing embeddings call.
 */

/** A vector as stored: base64 of its float32 little-endian bytes. */
export function vectorToBase64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

/** The stored vector of `dimensions` numbers; null when the bytes are not that many (or unreadable). */
export function vectorFromBase64(text: string, dimensions: number): Float32Array | null {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== dimensions * 4) return null;
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < vector.length; i += 1) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

/** Cosine similarity; -1 (ranked last) for vectors of different widths or a zero vector. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -1;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? -1 : dot / Math.sqrt(na * nb);
}

/**
 * `vector` scaled to length 1, so a cosine is a dot product (`dot`): a search comparing one query with many
 * kept vectors pays for their norms once, when they are kept. Null for a zero vector (no direction: it is
 * never related to anything, as `cosine` ranks it -1).
 */
export function unitVector(vector: Float32Array): Float32Array | null {
  let norm = 0;
  for (let i = 0; i < vector.length; i += 1) norm += (vector[i] as number) * (vector[i] as number);
  if (norm === 0 || !Number.isFinite(norm)) return null;
  const scale = 1 / Math.sqrt(norm);
  return Float32Array.from(vector, (x) => x * scale);
}

/** The dot product of two vectors of one width (the cosine of two unit vectors); -1 for different widths. */
export function dot(a: Float32Array, b: Float32Array): number {
  const n = a.length;
  if (n !== b.length) return -1;
  // Four running sums: independent additions the CPU overlaps (a search makes millions of them).
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += (a[i] as number) * (b[i] as number);
    s1 += (a[i + 1] as number) * (b[i + 1] as number);
    s2 += (a[i + 2] as number) * (b[i + 2] as number);
    s3 += (a[i + 3] as number) * (b[i + 3] as number);
  }
  for (; i < n; i += 1) s0 += (a[i] as number) * (b[i] as number);
  return s0 + s1 + s2 + s3;
}

/** What the failure log needs of a logger (pino's fits). */
export interface WarnLogger {
  warn(fields: object, message: string): void;
}

/**
 * Logs a failed embeddings call at WARNING once per kind of failure until a call succeeds again, so a provider
 * that is down is one line, not one per note or search. Only the error's kind, status and our own message are
 * logged (provider errors never carry the body or the key).
 */
export function failureLog(logger: WarnLogger | undefined): {
  failed(error: unknown, what: string): void;
  succeeded(): void;
} {
  const said = new Set<string>();
  return {
    failed(error, what) {
      const typed = error as { kind?: unknown; status?: unknown; message?: unknown };
      const kind = typeof typed.kind === 'string' ? typed.kind : 'error';
      if (said.has(kind)) return;
      said.add(kind);
      logger?.warn(
        {
          event: 'embeddings_failed',
          kind,
          status: typeof typed.status === 'number' ? typed.status : null,
          // Typed provider errors say the kind and status only; anything else is named, not quoted.
          reason: typeof typed.kind === 'string' && typeof typed.message === 'string' ? typed.message : null,
        },
        `embeddings call failed; ${what} (said once until a call succeeds)`,
      );
    },
    succeeded: () => said.clear(),
  };
}
