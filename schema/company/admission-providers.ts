/**
 * Admission rule A21 (admission.ts): an LLM provider entry listing one key twice in `api_keys`. Its pool tries
 * each listed key at most once a call, so the same key would be tried twice, meeting the same refusal (a 429
 * or 401 cools one key, not its twin). An admission rule, so a revision an earlier release stored with one
 * still boots, applies, reloads and reverts (the pool then tries the key twice, as it did).
 */
import { keyRef } from '../credential-refs.js';
import { ProblemKind } from './problems.js';
import { asList, type RuleContext } from './rule-context.js';
import { isRecord } from './walk.js';

export function providerKeyRules(ctx: RuleContext): void {
  const providers = ctx.doc['providers'];
  const llm = isRecord(providers) ? providers['llm'] : undefined;
  if (!isRecord(llm)) return;
  for (const [provider, entry] of Object.entries(llm)) {
    if (!isRecord(entry)) continue;
    // Keys are compared as the pool resolves them (trimmed); a literal is named by its place, never quoted.
    const first = new Map<string, number>();
    asList(entry['api_keys']).forEach((written, i) => {
      if (typeof written !== 'string') return;
      const text = written.trim();
      const at = first.get(text);
      if (at === undefined) {
        first.set(text, i);
        return;
      }
      const ref = keyRef(text, i);
      const what = ref === `api_keys[${i}]` ? 'the same key' : `\${${ref}}`;
      ctx.admission(
        ['providers', 'llm', provider, 'api_keys', i],
        ProblemKind.Conflict,
        `${what} is already listed at api_keys[${at}]: list each key once (the pool would try it twice a call)`,
      );
    });
  }
}
