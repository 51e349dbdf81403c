/**
 * The /secrets routes of a real `svc serve` node (dist/), spoken to over plain HTTP (spec "Secrets and setup
 * routes"): a value is any bytes and a reveal answers exactly them, `?source=` defaults to `api` and is
 * stored, a reveal is logged by name and operator and never by value, and a name outside the grammar is
 * refused before a body is read, however large it says it is. The route-by-route cases are
 * secrets.routes.e2e.test.ts (in-process, a real listener); the CLI over a served node, secrets-cli.e2e.test.ts.
 */
import t from 'tap';
import { openConnection } from '../harness/raw-http.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { keyringYaml } from './fixtures/secrets-node.js';

type Json = Record<string, unknown>;
const bearer = { authorization: `Bearer ${TOKEN}` };

t.test(
  'a served node keeps NUL, CR, CRLF and invalid UTF-8 as sent and reveals exactly them, logged without them',
  async (t) => {
    const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
    const call = (method: string, path: string, body?: Buffer) =>
      fetch(`${node.url}${path}`, { method, headers: bearer, ...(body ? { body } : {}) });
    const marker = 'served-canary-5e1b7c';
    const bytes = Buffer.concat([
      Buffer.from([0x00, 0x0d, 0x0a, 0x0d, 0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
      Buffer.from(marker),
      Buffer.from([0x0d, 0x0a, 0x00]),
    ]);
    const put = await call('PUT', '/secrets/RAW_BYTES', bytes);
    t.equal(put.status, 200);
    const record = (await put.json()) as Json;
    t.match(record, { name: 'RAW_BYTES', key_id: 'k1', updated_by: 'ops', source: 'api' }, 'source api');
    t.same(await (await call('GET', '/secrets/RAW_BYTES')).json(), record, 'the record as stored');
    t.match(await (await call('GET', '/secrets')).json(), {
      secrets: [{ name: 'RAW_BYTES', source: 'api' }],
    });

    const shown = await call('GET', '/secrets/RAW_BYTES?reveal=true');
    t.equal(shown.status, 200);
    t.equal(shown.headers.get('cache-control'), 'no-store');
    t.equal(shown.headers.get('content-type'), 'application/octet-stream');
    t.same(Buffer.from(await shown.arrayBuffer()), bytes, 'the same bytes, none translated');

    const line = await node.run.waitForLog((l) => l['event'] === 'secret_revealed');
    t.match(line, { name: 'RAW_BYTES', operator: 'ops' });
    t.notOk('value' in line, 'the log line has no value');
    t.notMatch(node.run.stdout() + node.run.stderr(), marker, 'the value is in no log line');

    t.same(await (await call('DELETE', '/secrets/RAW_BYTES')).json(), { removed: true });
    t.same(await (await call('DELETE', '/secrets/RAW_BYTES')).json(), { removed: false });
  },
);

t.test(
  'a bad name announcing a 25 MiB body is refused invalid_name with no byte of it sent; a good one, over the limit',
  async (t) => {
    const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
    // Nothing of the body is ever written: an answer proves the node decided without reading it.
    const announce = async (name: string) => {
      const conn = await openConnection(node.port);
      t.teardown(() => conn.close());
      conn.write(
        `PUT /secrets/${name} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          `Content-Length: ${25 * 1024 * 1024}\r\n\r\n`,
      );
      const answer = await conn.response();
      return { status: answer.status, body: JSON.parse(answer.body) as Json };
    };
    t.match(await announce('BAD-NAME'), { status: 400, body: { error: 'invalid_name' } });
    t.match(await announce('9LIVES'), { status: 400, body: { error: 'invalid_name' } });
    t.match(
      await announce('GOOD_NAME'),
      { status: 413, body: { error: 'body_too_large', max_bytes: 65536 } },
      'a name in the grammar meets the 64 KiB limit instead, also before the body',
    );
    const listed = await fetch(`${node.url}/secrets`, { headers: bearer });
    t.same(await listed.json(), { secrets: [] }, 'nothing stored');
  },
);
