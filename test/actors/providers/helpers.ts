/** Shared pieces of the provider tests: a client on a fixture server and a way to read a call. */
import {
  anthropicClient,
  openaiClient,
  type LlmDelta,
  type LlmRequest,
  type LlmResult,
  type LlmStream,
  type ProviderClient,
} from '../../../actors/index.js';
import type { LlmServer } from '../../fixtures/llm/llm-server.js';

export const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city'],
  },
};

export const ask = (text: string, extra: Partial<LlmRequest> = {}): LlmRequest => ({
  system: 'You are terse.',
  messages: [{ role: 'user', content: text }],
  ...extra,
});

export function clientFor(
  server: LlmServer,
  type: 'openai' | 'openai-compatible' | 'anthropic',
  timeoutMs = 10_000,
): ProviderClient {
  const config = { name: 'fixture', type, model: 'model-x', baseUrl: server.baseUrl, timeoutMs };
  return type === 'anthropic' ? anthropicClient(config) : openaiClient(config);
}

/** Runs one client call, collecting the deltas it hands out. */
export async function callClient(
  client: ProviderClient,
  request: LlmRequest,
  key: string | null = 'sk-test-key-1',
): Promise<{ result: LlmResult; deltas: LlmDelta[] }> {
  const deltas: LlmDelta[] = [];
  const result = await client.call(request, key, (d) => deltas.push(d));
  return { result, deltas };
}

/** Reads a registry call to its end: the deltas iterated and the result (or the error). */
export async function drain(
  stream: LlmStream,
): Promise<{ deltas: LlmDelta[]; result?: LlmResult; error?: unknown }> {
  const deltas: LlmDelta[] = [];
  try {
    for await (const d of stream) deltas.push(d);
    return { deltas, result: await stream.result() };
  } catch (error) {
    return { deltas, error };
  }
}

/** The rejection of `promise`, failing when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
