/** A stored message's or KV entry's JSON, as projections fold it: a body that is not JSON folds as null. */
const decoder = new TextDecoder();

/** The JSON of `data`, or null when it is not JSON (the projection's schema then skips it). */
export function decodeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data)) as unknown;
  } catch {
    return null;
  }
}
