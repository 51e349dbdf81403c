/** The one test for a plain JSON object, shared by every folder that reads untyped JSON. */
export type JsonObject = Record<string, unknown>;

export const isRecord = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
