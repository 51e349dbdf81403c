/** A provider registry on fixture servers, with its events and log lines collected and a settable clock. */
import pino from 'pino';
import type { Test } from 'tap';
import { createProviderRegistry, type RegistryOptions } from '../../../actors/index.js';
import { Company, EventRecord } from '../../../schema/index.js';
import { startLlmServer, type LlmServerOptions } from '../../fixtures/llm/llm-server.js';

export const secrets: Record<string, string> = {
  KEY_A: 'sk-secret-aaaa',
  KEY_B: 'sk-secret-bbbb',
  KEY_C: 'sk-secret-cccc',
  OPENAI_API_KEY: 'sk-secret-env-openai',
  ANTHROPIC_API_KEY: 'sk-secret-env-anthropic',
};

export async function server(t: Test, opts: LlmServerOptions) {
  const s = await startLlmServer(opts);
  t.teardown(() => s.close());
  return s;
}

export function harness(document: Company | null, extra: Partial<RegistryOptions> = {}) {
  let now = Date.parse('2026-11-23T10:00:00Z');
  const events: EventRecord[] = [];
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
  const registry = createProviderRegistry({
    document,
    resolve: (name) => secrets[name],
    onEvent: (e) => events.push(EventRecord.parse(e)),
    logger,
    now: () => now,
    source: 'node-0/providers',
    ...extra,
  });
  return { registry, events, lines, advance: (ms: number) => (now += ms), now: () => now };
}

export const doc = (llm: Record<string, unknown>, order?: string[], roles: unknown[] = []): Company =>
  Company.parse({
    name: 'Acme',
    providers: { llm, ...(order ? { llm_order: order } : {}) },
    roles,
  });
