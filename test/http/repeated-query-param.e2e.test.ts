import t from 'tap';
import { keyringYaml, startSecretsNode } from './fixtures/secrets-node.js';
import { startSetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

t.test('a single-valued parameter of a /secrets route given twice is 400 invalid_query', async (t) => {
  const node = await startSecretsNode(t, { tierA: keyringYaml('k1', ['k1', 1]) });
  await node.call('PUT', '/secrets/KEPT', { body: 'v' });
  for (const [method, path, body] of [
    ['PUT', '/secrets/TWICE?source=a&source=b', 'v'],
    ['GET', '/secrets/KEPT?reveal=false&reveal=true', undefined],
    ['POST', '/secrets/rekey?key_id=k1&key_id=k2', undefined],
  ] as const) {
    const res = await node.call(method, path, body === undefined ? {} : { body });
    t.equal(res.status, 400, `${method} ${path}`);
    t.match(await json(res), { error: 'invalid_query', detail: /given 2 times/ });
  }
  t.equal((await node.call('GET', '/secrets/TWICE')).status, 404, 'nothing was stored');
  const once = await node.call('PUT', '/secrets/ONCE?source=cli', { body: 'v' });
  t.match(await json(once), { source: 'cli' }, 'given once it is read as before');
});

t.test('`before` on the setup runs route given twice is 400 invalid_query', async (t) => {
  const node = await startSetupNode(t);
  const res = await node.call('GET', '/setup/integrations/monitor/runs?before=a&before=b');
  t.equal(res.status, 400);
  t.match(await json(res), { error: 'invalid_query', detail: /before is given 2 times/ });
  const absent = await node.call('GET', '/setup/integrations/monitor/runs');
  t.equal(absent.status, 200);
});
