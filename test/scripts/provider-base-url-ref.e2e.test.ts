/**
 * An LLM entry's `base_url` written as a `${VAR}` reference on a built `svc serve`: it is resolved from the
 * secret store at each call, as its `api_keys` are (ops/providers.md "Wires"), so the call reaches the server the
 * secret names, a rotated secret moves the next call, and a value naming no host fails the call as
 * `invalid_base_url` instead of being posted to.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { startLlmServer, type LlmServer } from '../fixtures/llm/llm-server.js';
import { startBusNode } from '../harness/bus-node.js';
import { TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';

type Loose = Record<string, unknown>;

const KEY = 'sk-base-url-KEY000000001';
/** Stands for a host name an operator keeps secret: it must not be echoed by the failure. */
const MARKER = 'marker-not-to-quote-7f3a';

t.test(
  'a base_url written as ${VAR} is resolved at each call: a turn reaches the server it names, a rotation moves the next call, a value naming no host fails as invalid_base_url',
  async (t) => {
    const fake = async (): Promise<LlmServer> => {
      const server = await startLlmServer({
        wire: 'openai',
        acceptKeys: [KEY],
        script: () => ({
          kind: 'text',
          text: '{"verdict":"done","notes":"ok"}',
          usage: { prompt_tokens: 100, completion_tokens: 10 },
        }),
      });
      t.teardown(() => server.close());
      return server;
    };
    const first = await fake();
    const second = await fake();
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
    const putSecret = async (name: string, value: string) =>
      t.equal((await call('PUT', `/secrets/${name}`, value, { 'content-type': 'text/plain' })).status, 200);
    const trace = async (traceId: string): Promise<Loose[]> =>
      (await call('GET', `/events/trace/${traceId}`)).json['events'] as Loose[];
    const turn = async (summary: string): Promise<Loose[]> => {
      const wake = mentionWake(summary);
      await queueWake(bus, 'bob', wake);
      // A turn ends completed whether or not its calls failed: its events are all in by then.
      return until(
        () => trace(wake.trace_id),
        (events) => events.some((e) => e['type'] === 'agent_turn_completed'),
        20_000,
      );
    };
    const types = (events: Loose[]): string[] => events.map((e) => e['type'] as string);

    await putSecret('LLM_KEY', KEY);
    await putSecret('LLM_URL', first.baseUrl);
    const put = await call(
      'PUT',
      '/config',
      JSON.stringify({
        name: 'Acme',
        providers: { llm: { main: { type: 'openai', model: 'gpt-u', base_url: '${LLM_URL}', api_keys: ['${LLM_KEY}'] } }, llm_order: ['main'] }, // prettier-ignore
        roles: [{ name: 'Bob' }],
      }),
      { 'content-type': 'application/json', 'x-summary': 'base_url by reference' },
    );
    t.equal(put.status, 201, JSON.stringify(put.json));
    await node.run.waitForLog((l) => l.msg === 'seat spawned' && l['seat'] === 'bob');

    const one = types(await turn('bob task 1'));
    t.notOk(one.includes('llm_unavailable'), `the turn ran on the server LLM_URL names: ${one.join(',')}`);
    t.ok(first.requests.length > 0, 'the first server was called');
    t.equal(second.requests.length, 0, 'the second server was not');

    // The operator rotates the secret: the next call goes to the new server, with no reload.
    await putSecret('LLM_URL', second.baseUrl);
    const calledBefore = first.requests.length;
    const two = types(await turn('bob task 2'));
    t.notOk(two.includes('llm_unavailable'), `the turn ran after the rotation: ${two.join(',')}`);
    t.ok(second.requests.length > 0, 'the rotated URL was called');
    t.equal(first.requests.length, calledBefore, 'the old URL was not called again');

    // A value naming no host (what http://${HOST}/v1 gives with HOST unset) is never posted to.
    await putSecret('LLM_URL', `http:///${MARKER}/v1`);
    const calledNow = first.requests.length + second.requests.length;
    const events = await turn('bob task 3');
    const failed = events.find((e) => e['type'] === 'llm_unavailable');
    t.ok(failed, `the call failed: ${types(events).join(',')}`);
    t.match(failed?.['payload'], {
      reason: 'invalid_base_url',
      retry_at: null,
      attempts: [{ provider: 'main', reason: 'invalid_base_url', status: null }],
    });
    t.equal(first.requests.length + second.requests.length, calledNow, 'nothing was sent');
    t.notOk(JSON.stringify(events).includes(MARKER), 'the events do not quote the resolved value');
    t.notOk(node.run.stdout().includes(MARKER), 'the log does not quote the resolved value');
    t.notOk(node.run.stdout().includes(KEY), 'no key value logged');
  },
);
