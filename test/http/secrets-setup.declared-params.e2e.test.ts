/**
 * The /secrets and /setup routes declare the query parameters they read, as the /config routes do: any other
 * is 400 `bad_params` naming it, before the body is read and before anything is done. A write does what
 * it says or nothing: `DELETE /setup/integrations/relay?dry_run=true` disconnected the relay, and
 * `PUT /secrets/X?dry_run=true` or `?sorce=cli` stored the value, the parameter passed over.
 */
import t from 'tap';
import { company, KEYRING, startSetupNode } from './fixtures/setup-node.js';

type Json = Record<string, unknown>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

t.test(
  'a parameter a secrets or setup route does not read is 400 bad_params, and nothing is done',
  async (t) => {
    const node = await startSetupNode(t, { tierA: KEYRING });
    await node.putDocument(company({ integrations: { relay_app_id: 'relay-app-1' } }));
    t.equal((await node.call('PUT', '/secrets/KEPT', { body: 'kept-value' })).status, 200);
    const revisions = async (): Promise<unknown> =>
      (await json(await node.call('GET', '/config/revisions')))['total'];
    const before = await revisions();

    const writes: Array<[string, string, string?]> = [
      ['PUT', '/secrets/NEW_ONE?dry_run=true', 'value'],
      ['PUT', '/secrets/NEW_ONE?sorce=cli', 'value'],
      ['DELETE', '/secrets/KEPT?dry_run=true'],
      ['POST', '/secrets/rekey?keyid=k1'],
      ['DELETE', '/setup/integrations/relay?dry_run=true'],
      ['POST', '/setup/integrations/relay/inputs?dry_run=true', '{"values":{"relay_app_id":"x"}}'],
      ['POST', '/setup/integrations/relay/provision?dry_run=true'],
      ['POST', '/setup/integrations/relay/check?x=1'],
    ];
    for (const [method, path, body] of writes) {
      const res = await node.call(method, path, body !== undefined ? { body } : {});
      t.equal(res.status, 400, `${method} ${path}`);
      t.match(await json(res), { error: 'bad_params', detail: /dry_run|sorce|keyid|\bx\b/ }, 'naming it');
    }
    t.equal((await node.call('GET', '/secrets/NEW_ONE')).status, 404, 'no secret stored');
    t.equal(await (await node.call('GET', '/secrets/KEPT?reveal=true')).text(), 'kept-value', 'none removed');
    t.equal(await revisions(), before, 'no revision stored');
    const relay = await json(await node.call('GET', '/setup/integrations/relay'));
    t.equal(relay['configured'], true, 'the relay stays connected');
    const runs = await json(await node.call('GET', '/setup/integrations/relay/runs'));
    t.same(runs['runs'], [], 'no pass ran');

    for (const path of [
      '/secrets?limit=5',
      '/secrets/KEPT?revael=true',
      '/setup/integrations?kind=relay',
      '/setup/integrations/relay?x=1',
      '/setup/integrations/relay/runs?befor=x',
    ]) {
      const res = await node.call('GET', path);
      t.equal(res.status, 400, `GET ${path}`);
      t.equal((await json(res))['error'], 'bad_params');
    }

    // The parameters each route reads still answer.
    t.equal((await node.call('PUT', '/secrets/NEW_ONE?source=cli', { body: 'v' })).status, 200);
    t.equal(await (await node.call('GET', '/secrets/NEW_ONE?reveal=true')).text(), 'v');
    t.equal((await node.call('POST', '/secrets/rekey?key_id=k1')).status, 200);
    t.equal((await node.call('DELETE', '/secrets/NEW_ONE')).status, 200);
    t.equal((await node.call('POST', '/setup/integrations/relay/check')).status, 200);
    t.equal((await node.call('GET', '/setup/integrations/relay/runs?before=')).status, 200);
    t.equal((await node.call('DELETE', '/setup/integrations/relay')).status, 200);
  },
);
