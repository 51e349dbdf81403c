import t from 'tap';
import { openConnection } from '../harness/raw-http.js';
import { keyringYaml, startSecretsNode } from './fixtures/secrets-node.js';
import { CI } from './fixtures/gateway-harness.js';

t.test('probe', async (t) => {
  const node = await startSecretsNode(t, { tierA: keyringYaml('k1', ['k1', 1]) });
  const conn = await openConnection(node.harness.gw.port);
  t.teardown(() => conn.close());
  const chunk = 'a'.repeat(40000);
  conn.write(`PUT /secrets/CHUNKY HTTP/1.1\r\nHost: x\r\nAuthorization: ${CI}\r\nTransfer-Encoding: chunked\r\n\r\n${(40000).toString(16)}\r\n${chunk}\r\n${(40000).toString(16)}\r\n${chunk}\r\n0\r\n\r\n`);
  const a = await conn.response();
  t.comment(a.status, a.body);
  for (const [m, p] of [['GET', '/secrets/'], ['GET', '/secrets/A/'], ['PUT', '/secrets/'], ['GET', '/secrets/A?reveal=TRUE'], ['PUT', '/secrets/B?source=a&source=Bad'], ['POST', '/secrets/rekey?key_id='], ['GET', '/secrets?reveal=true'], ['HEAD', '/secrets/A'], ['PUT', '/secrets/A%00'], ['PUT', '/secrets/_']] as const) {
    const r = await node.call(m, p, m === 'PUT' ? { body: 'v' } : {});
    t.comment(m, p, r.status, (await r.text()).slice(0, 300));
  }
});
