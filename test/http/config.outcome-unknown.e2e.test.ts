/**
 * A config write whose store is not acknowledged answers 503 `outcome_unknown` naming the revision it
 * tried, never a codeless 500 (issue #15: writes in flight while the stream leader died got a 500 without
 * a code). The bus under the node is real (memory engine); only its publish of the revision record is
 * made to fail, before or after the record lands, as a lost server does.
 */
import t from 'tap';
import { openMemoryBus } from '../../bus/memory/index.js';
import { company, startConfigNode } from './fixtures/config-node.js';
import { flakyRevisionStore } from './fixtures/hooked-bus.js';

type Json = Record<string, unknown>;

for (const mode of ['before', 'after'] as const) {
  t.test(`a write whose store fails ${mode} the record lands answers 503 outcome_unknown`, async (t) => {
    const inner = await openMemoryBus({});
    t.teardown(() => inner.close());
    const flaky = flakyRevisionStore(inner, mode);
    const node = await startConfigNode(t, { bus: flaky.bus });
    const first = await node.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'one' } });
    t.equal(first.status, 201);
    const etag = first.headers.get('etag') ?? `"${((await first.json()) as Json)['revision_id'] as string}"`;

    flaky.fail(true);
    const res = await node.call('PUT', '/config', {
      body: company('Acme 2'),
      headers: { 'x-summary': 'two', 'if-match': etag },
    });
    const body = (await res.json()) as Json;
    t.equal(res.status, 503);
    t.equal(body['error'], 'outcome_unknown', 'a coded answer, not a codeless 500');
    t.match(body['revision_id'], /^[0-9a-f-]{36}$/, 'naming the revision it tried');
    t.equal(res.headers.get('retry-after'), '5');
    t.type(body['hint'], 'string');

    // The id named is the one the write stored under, when it did store.
    flaky.fail(false);
    const stored = await node.call('GET', `/config/revisions/${body['revision_id'] as string}`);
    t.equal(stored.status, mode === 'after' ? 200 : 404, mode === 'after' ? 'it was stored' : 'it was not');
  });
}
