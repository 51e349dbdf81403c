import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

t.test(
  'a served node applies the providers subsystem: entries are swapped in on each revision',
  async (t) => {
    const node = await startNode(t);
    const put = (company: unknown, ifMatch?: string) =>
      fetch(`${node.url}/config`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'x-summary': 'providers',
          ...(ifMatch ? { 'if-match': ifMatch } : {}),
        },
        body: JSON.stringify(company),
      });
    const first = await put({
      name: 'Acme',
      providers: {
        llm: { main: { type: 'anthropic', model: 'c', api_keys: ['${ANTHROPIC_KEY_MAIN}'] } },
        llm_order: ['main'],
      },
      roles: [{ name: 'Ada' }],
    });
    t.equal(first.status, 201);
    const applied = await node.run.waitForLog((l) => l.msg === 'config applied');
    t.ok((applied['subsystems'] as string[]).includes('providers'), 'the providers subsystem applied');
    t.match(await node.run.waitForLog((l) => l.msg === 'LLM providers applied'), { providers: ['main'] });

    const second = await put(
      {
        name: 'Acme',
        providers: {
          llm: {
            main: { type: 'anthropic', model: 'c', api_keys: ['${ANTHROPIC_KEY_MAIN}'] },
            local: { type: 'openai-compatible', model: 'q', base_url: 'http://127.0.0.1:9/v1' },
          },
          llm_order: ['local', 'main'],
        },
        roles: [{ name: 'Ada' }],
      },
      first.headers.get('etag') ?? undefined,
    );
    t.equal(second.status, 201);
    t.match(
      await node.run.waitForLog(
        (l) =>
          l.msg === 'LLM providers applied' && Array.isArray(l['providers']) && l['providers'].length === 2,
      ),
      { providers: ['main', 'local'] },
    );
  },
);
