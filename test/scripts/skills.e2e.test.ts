/**
 * Tool skills inside `svc serve` (JetStream, so the test can wake a seat on the node's own inbox): a page
 * written to the native knowledge base's `TS` container becomes a skill, a seat lists and reads it with
 * the document's `skill_variables` filled in, and the seat's episode names it in `skills_used`.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startBusNode } from '../harness/bus-node.js';
import { TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { mentionWake, queueWake } from '../harness/wake.js';
import { localProviders } from '../fixtures/llm/providers.js';

const usage = { prompt_tokens: 10, completion_tokens: 5 };
const auth = { authorization: `Bearer ${TOKEN}` };

t.test('a page of the skills container is a skill a served seat lists, reads and records', async (t) => {
  const llm = await startLlmServer({
    wire: 'openai',
    script: [
      {
        kind: 'tool_calls',
        calls: [{ id: 'l1', name: 'skill_list', arguments: { query: 'deploy' } }],
        usage,
      },
      { kind: 'text', text: '{"decision":"plan","steps":["read the skill"],"tools":["skill_read"]}', usage },
      { kind: 'tool_calls', calls: [{ id: 'r1', name: 'skill_read', arguments: { name: 'deploying the site' } }], usage }, // prettier-ignore
      { kind: 'text', text: 'Read how to deploy.', usage },
      { kind: 'text', text: '{"verdict":"done","notes":"ok"}', usage },
    ],
  });
  t.teardown(() => llm.close());
  const { node, bus } = await startBusNode(t, 'knowledge: {backend: native}');
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'skills' },
    body: JSON.stringify({
      name: 'Acme',
      providers: localProviders(llm.baseUrl),
      knowledge: { wiki_spaces: ['TS'] },
      skill_variables: { site_url: 'https://acme.example' },
      roles: [{ name: 'Ada' }],
    }),
  });
  t.equal(put.status, 201);
  t.notMatch(JSON.stringify(await put.json()), /not_applied/, 'skill_variables are applied');
  await node.run.waitForLog((l) => l.msg === 'config applied');

  const page = await fetch(`${node.url}/pages`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ container: 'TS', title: 'Deploying the site', body: '# Deploy\nRun `make deploy`, then open {{site_url}}.' }), // prettier-ignore
  });
  t.equal(page.status, 201);
  await node.run.waitForLog((l) => l['event'] === 'skills_synced' && l['source'] === 'native');

  await queueWake(bus, 'ada', mentionWake('Deploy the site'));
  // The read models follow the stream on their own tail and push nothing for the memory view when they fold:
  // its answer is asked until it holds the episode (the turn runs first).
  type View = { episodes: Array<{ skills_used: string[]; tool_sequence: string[] }> };
  const view = await until(
    async () => (await (await fetch(`${node.url}/agents/ada/memory`)).json()) as View,
    (v) => v.episodes.length > 0,
    { timeoutMs: 20_000, everyMs: 25 },
  );
  t.match(view?.episodes[0], {
    tool_sequence: ['skill_list', 'skill_read'],
    skills_used: ['Deploying the site'],
  });
  // What the model was given back: the list line and the skill with its variable filled in.
  const bodies = llm.requests.map((r) => JSON.stringify(r.body));
  t.match(
    bodies[1],
    /1 tool skill:\\n- Deploying the site — Run make deploy, then open https:\/\/acme.example\./,
  );
  t.match(
    bodies[3],
    /# Deploying the site\\n\(native\)\\n\\n# Deploy\\nRun `make deploy`, then open https:\/\/acme.example\./,
  );
});
