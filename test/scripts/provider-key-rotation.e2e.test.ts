/**
 * An operator rotates a revoked LLM key on a built `svc serve`: the provider refused the stored value (401),
 * so the key cools; the new value put in the secret store must be taken by the next call, as
 * ops/providers.md "Credential pool" promises, not only once the old value's backoff has run out.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startBusNode } from '../harness/bus-node.js';
import { TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

type Loose = Record<string, unknown>;
interface PoolKey {
  ref: string;
  cooling_until: string | null;
  reason: string | null;
  failures: number;
}

const REVOKED = 'sk-revoked-OLD0000000001';
const ROTATED = 'sk-rotated-NEW0000000002';

t.test(
  'a revoked key rotated in the secret store is taken by the next call, not after its auth backoff',
  async (t) => {
    const llm = await startLlmServer({
      wire: 'openai',
      acceptKeys: [ROTATED],
      script: () => ({
        kind: 'text',
        text: '{"verdict":"done","notes":"ok"}',
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      }),
    });
    t.teardown(() => llm.close());
    const keyring = `secrets: {active_key_id: k1, keys: [{id: k1, material: ${randomBytes(32).toString('base64')}}]}`;
    const { node, bus } = await startBusNode(t, keyring);
    const call = async (method: string, path: string, body?: string, headers: Loose = {}) => {
      const res = await fetch(`${node.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, ...(headers as Record<string, string>) },
        ...(body === undefined ? {} : { body }),
      });
      return { status: res.status, json: (await res.json()) as Loose };
    };
    const putSecret = (value: string) =>
      call('PUT', '/secrets/LLM_KEY', value, { 'content-type': 'text/plain' });
    const poolKey = async (): Promise<PoolKey> => {
      const providers = (await call('GET', '/credential-pool')).json['providers'] as Loose;
      return ((providers['main'] as Loose)['keys'] as PoolKey[])[0]!;
    };
    const traceTypes = async (traceId: string): Promise<string[]> =>
      ((await call('GET', `/events/trace/${traceId}`)).json['events'] as Loose[]).map(
        (e) => e['type'] as string,
      );

    t.equal((await putSecret(REVOKED)).status, 200);
    const put = await call(
      'PUT',
      '/config',
      JSON.stringify({
        name: 'Acme',
        providers: { llm: { main: { type: 'openai', model: 'gpt-r', base_url: llm.baseUrl, api_keys: ['${LLM_KEY}'] } }, llm_order: ['main'] }, // prettier-ignore
        roles: [{ name: 'Bob' }],
      }),
      { 'content-type': 'application/json', 'x-summary': 'rotation' },
    );
    t.equal(put.status, 201, JSON.stringify(put.json));
    await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'bob');

    // The stored value is refused: the key cools (60 s) and the turn waits for it.
    const first = mentionWake('bob task 1');
    await queueWake(bus, 'bob', first);
    await until(
      () => traceTypes(first.trace_id),
      (types) => types.includes('llm_unavailable'),
      20_000,
    );
    t.match(
      await poolKey(),
      { ref: 'LLM_KEY', reason: 'auth_refused', failures: 1 },
      'the refused key cools',
    );

    // The operator rotates it: the pool reads the key usable at once.
    t.equal((await putSecret(ROTATED)).status, 200);
    t.match(
      await poolKey(),
      { ref: 'LLM_KEY', cooling_until: null, reason: null, failures: 0 },
      'a new value is not the value that was refused',
    );

    // The next wake's calls take the new value and its turn completes, long before the old backoff ends.
    const second = mentionWake('bob task 2');
    await queueWake(bus, 'bob', second);
    const types = await until(
      () => traceTypes(second.trace_id),
      (types) => types.includes('agent_turn_completed') || types.includes('llm_unavailable'),
      20_000,
    );
    t.notOk(types.includes('llm_unavailable'), 'no call met the old cooldown');
    t.ok(types.includes('agent_turn_completed'), 'the turn ran on the rotated key');
    t.ok(
      llm.requests.some((r) => r.key === ROTATED),
      'the provider was sent the rotated value',
    );
    t.notOk(
      node.run.stdout().includes(ROTATED) || node.run.stdout().includes(REVOKED),
      'no key value logged',
    );
  },
);
