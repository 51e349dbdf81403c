/**
 * Renaming the company gives every seat a new durable agent id (spec: a UUIDv5 over company name and handle),
 * so each seat's notes, episodes, counterparty profiles and learned skills stay behind under the old ids. A
 * write (and its dry run) that changes `name` is still stored, and its answer carries a `company_renamed`
 * warning at `name` saying so (ops/config.md "Renaming the company"); a write keeping the name carries none.
 */
import t from 'tap';
import { call, type Json } from '../harness/api.js';
import { startNode } from '../harness/serve-node.js';

const renamed = (body: Json): Json[] =>
  ((body['warnings'] as Json[] | undefined) ?? []).filter((w) => w['kind'] === 'company_renamed');
const doc = (name: string) => ({ name, timezone: 'UTC', roles: [{ name: 'Ada' }] });

t.test('a write that renames the company warns that every seat gets a new agent id', async (t) => {
  const node = await startNode(t);
  const first = await call(node.url, 'PUT', '/config', doc('Acme'));
  t.equal(first.status, 201);
  t.same(renamed(first.body), [], 'a first document renames nothing');

  const same = await call(node.url, 'PUT', '/config', { ...doc('Acme'), timezone: 'Europe/Paris' });
  t.equal(same.status, 201);
  t.same(renamed(same.body), [], 'a write keeping the name carries no such warning');

  const expected = {
    kind: 'company_renamed',
    path: 'name',
    segments: ['name'],
    from: 'Acme',
    to: 'Acme Labs',
    message: /new agent id.*memory/s,
  };
  const dry = await call(node.url, 'PUT', '/config?dry_run=true', doc('Acme Labs'));
  t.equal(dry.status, 200);
  t.match(renamed(dry.body), [expected], 'the dry run says so before anything is stored');

  const patched = await call(node.url, 'PATCH', '/config', { name: 'Acme Labs' });
  t.equal(patched.status, 201, 'the rename is stored');
  t.match(renamed(patched.body), [expected], 'the write says so');
  t.equal(renamed(patched.body).length, 1);

  const back = await call(node.url, 'PUT', '/config', doc('Acme'));
  t.match(renamed(back.body), [{ from: 'Acme Labs', to: 'Acme' }], 'renaming back warns as well');
});
