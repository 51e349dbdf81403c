/**
 * Versioning 5 and write rule 8: an older build keeps settings a newer build wrote. A revision stored by a
 * newer build (keys this build's schema does not know, at the root and on a seat) is applied here, and a
 * PATCH, an entity PUT, a reload and a revert on this build store it again with those keys kept.
 */
import { pino } from 'pino';
import t from 'tap';
import { executeWrite } from '../../actors/index.js';
import { aConfigWrite, validAsSent } from '../actors/fixtures/config-write.js';
import { company, type Json, json, startConfigNode } from './fixtures/config-node.js';

/** The small company with what a newer build added: a root block and a field on a seat. */
function newerDocument(): Json {
  const doc = company();
  const roles = doc['roles'] as Json[];
  return {
    ...doc,
    future_block: { mode: 'fast' },
    roles: [{ ...roles[0], future_seat_field: 7 }],
  };
}

t.test(
  'a revision a newer build wrote is applied, and writes, reload and revert here keep its unknown keys',
  async (t) => {
    const node = await startConfigNode(t);
    const put = await node.call('PUT', '/config', { body: company(), headers: { 'x-summary': 'first' } });
    t.equal(put.status, 201);
    const firstId = (await json(put))['revision_id'] as string;

    // A newer build's writer stores and activates a document this build's schema does not fully know.
    const newer = aConfigWrite(newerDocument(), firstId, { summary: 'written by a newer build' });
    const stored = await executeWrite(
      {
        bus: node.bus,
        coord: node.configuration.coord,
        logger: pino({ level: 'silent' }),
        validate: validAsSent,
      },
      newer,
    );
    if (stored.outcome !== 'stored') throw new Error(`the newer build's write was ${stored.outcome}`);
    t.ok(await node.configuration.view.until((s) => s.active?.epoch === stored.epoch, 30_000));
    await node.configuration.applyActive();
    t.match(
      node.node.view(),
      { posture: 'serve', appliedEpoch: stored.epoch },
      'the node runs the newer revision (what it does not know is left alone)',
    );

    const kept = async (id: string, what: string): Promise<void> => {
      const payload = (await json(await node.call('GET', `/config/revisions/${id}`)))['payload'] as Json;
      t.same(payload['future_block'], { mode: 'fast' }, `${what}: the root key is kept`);
      t.equal((payload['roles'] as Json[])[0]?.['future_seat_field'], 7, `${what}: the seat key is kept`);
    };

    const patch = await node.call('PATCH', '/config', {
      body: { mission: 'Ship.' },
      headers: { 'x-summary': 'patch here' },
    });
    t.equal(patch.status, 201, 'a PATCH on the older build is stored');
    await kept((await json(patch))['revision_id'] as string, 'PATCH');

    const entity = await node.call('PUT', '/config/roles/chief-agent', {
      body: { name: 'Chief Agent', goal: 'Run it well.' },
      headers: { 'x-summary': 'entity here' },
    });
    t.equal(entity.status, 201, 'an entity PUT on the older build is stored');
    await kept((await json(entity))['revision_id'] as string, 'entity PUT');

    const reload = await node.call('POST', '/config/reload');
    t.equal(reload.status, 201, 'a reload on the older build is stored');
    await kept((await json(reload))['revision_id'] as string, 'reload');

    const revert = await node.call('POST', `/config/revisions/${stored.revision_id}/revert`);
    t.equal(revert.status, 201, 'a revert to the newer revision is stored');
    await kept((await json(revert))['revision_id'] as string, 'revert');

    const dry = await node.call('PATCH', '/config?dry_run=true', { body: { vision: 'v' } });
    t.match({ status: dry.status, body: await json(dry) }, { status: 200, body: { valid: true } });

    // A key the operator sends that this build does not know is still refused.
    const typo = await node.call('PUT', '/config', {
      body: { ...newerDocument(), misspelt_key: 1 },
      headers: { 'x-summary': 'typo' },
    });
    t.equal(typo.status, 400);
    t.match(await json(typo), { problems: [{ path: 'misspelt_key', kind: 'unknown_field' }] });
    await node.configuration.applyActive();
    t.match(node.node.view(), { posture: 'serve' });
  },
);
