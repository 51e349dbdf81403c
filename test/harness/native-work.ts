/**
 * `svc serve` nodes with the native tracker and knowledge base: their Tier A lines, the company that gives
 * them project ENG and space ENG, and storing it then waiting for the nodes to serve the project (the apply
 * follows the PUT's answer).
 */
import type { Test } from 'tap';
import { TOKEN } from './serve-node.js';
import { until } from './until.js';

type Json = Record<string, unknown>;

/** The Tier A lines that turn both native backends on. */
export const nativeBackends = 'tracker: {backend: native}\nknowledge: {backend: native}';

/** Ada, a human the operator token (`ops`) is linked to. */
const ada = { name: 'Ada', handle: 'ada', kind: 'human', contact: { operator_id: 'ops' } };

/** Engineering owns project ENG and space ENG; its roles are Ada and `more`. */
export const nativeWorkCompany = (...more: Json[]): Json => ({
  name: 'Acme',
  timezone: 'UTC',
  units: [
    {
      name: 'Engineering',
      type: 'team',
      integrations: { work: { project: 'ENG' }, wiki: { space: 'ENG' } },
      roles: [ada, ...more],
    },
  ],
});

const auth = { authorization: `Bearer ${TOKEN}` };

/**
 * Stores `company` through the first of `urls` (a 201, or the test fails) and waits until every node
 * serves its one project; answers the stored revision's id.
 */
export async function applyNativeWork(
  t: Test,
  urls: readonly string[],
  company: Json,
  summary: string,
  timeoutMs?: number,
): Promise<string> {
  const put = await fetch(`${urls[0]}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': summary },
    body: JSON.stringify(company),
  });
  t.equal(put.status, 201, await put.clone().text());
  const stored = (await put.json()) as Json;
  for (const url of urls)
    await until(
      async () => (await (await fetch(`${url}/work/projects`, { headers: auth })).json()) as Json,
      (p) => (p['projects'] as Json[] | undefined)?.length === 1,
      timeoutMs,
    );
  return stored['revision_id'] as string;
}
