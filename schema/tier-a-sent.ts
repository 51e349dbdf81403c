/**
 * A Tier A file sent where the company document goes (`PUT /config`, `svc config put`, `--company`): its
 * keys are unknown fields of the company document, listed one by one, which do not say that the whole file
 * is the wrong one. Told apart by the two schemas alone, so a company document with a mistyped key is
 * never taken for one.
 */
import { keysOfSchemaAt, knownKeysAt } from './company/known-keys.js';
import { isRecord } from './json.js';
import { TierAFile } from './tier-a.js';

type Segment = string | number;

/**
 * True when `document` holds a key only the Tier A file knows (`api`, `node`, `stream`, `providers.queue`,
 * ...) and none only the company document knows (`name`, `roles`, `units`, `providers.llm`, ...). Keys both
 * schemas know (`providers`, `knowledge`) are judged by the keys under them; keys neither knows (typos) by
 * nothing. The walk only descends where both schemas name the key, so it is as deep as they are.
 *
 * @example looksLikeTierAFile({ api: { port: 8080 }, stream: {} }) // true
 * @example looksLikeTierAFile({ name: 'Acme', stream: {} }) // false
 */
export function looksLikeTierAFile(document: unknown): boolean {
  let tierAOnly = 0;
  const pending: Array<{ at: Segment[]; value: unknown }> = [{ at: [], value: document }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (!isRecord(next.value)) continue;
    const tierA = keysOfSchemaAt(TierAFile, next.at);
    const company = knownKeysAt(next.at);
    if (tierA === 'any' || company === 'any') continue;
    for (const [key, value] of Object.entries(next.value)) {
      const inTierA = tierA.has(key);
      const inCompany = company.has(key);
      if (inCompany && !inTierA) return false;
      if (inTierA && !inCompany) tierAOnly++;
      else if (inTierA && inCompany) pending.push({ at: [...next.at, key], value });
    }
  }
  return tierAOnly > 0;
}

/** The hint of a company write refused with the Tier A file's keys in it. */
export const tierAFileHint =
  'This looks like the Tier A file (keys such as `api`, `providers.queue`, `node`, `stream` at the top): the node’s own start file, read when it starts (`svc serve --config FILE`), never written through /config. The company document holds `name`, `roles`, `units`, `providers.llm`, `mcp_servers`, `integrations`, ... (`svc config schema` lists them; ops/company.example.yaml is one).';
