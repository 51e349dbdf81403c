/**
 * A node's boot does not read its configuration history (issue "memory grows with configuration
 * history"): stored revisions carry their metadata in a header, so the replay that rebuilds the read
 * model and the revision table leaves every document unread, reads back the active one, and any other
 * is read by its sequence when asked for. The store is reopened, so the database answers the replay.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import t from 'tap';
import { activePointerKey, configSubjects, startRevisions } from '../../../actors/index.js';
import { ensureCatalogue, Streams } from '../../../bus/index.js';
import { openMemoryBus } from '../../../bus/memory/index.js';
import { activeRevision, followConfig, listRevisions, readRevision } from '../../../projections/index.js';
import { revisionHeadHeader, type RevisionRecord } from '../../../schema/index.js';

const enc = new TextEncoder();
const json = (value: unknown): Uint8Array => enc.encode(JSON.stringify(value));
const silent = pino({ level: 'silent' });

t.test('boot folds every revision from its header and reads only the active document', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-config-unread-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ids = Array.from({ length: 5 }, () => randomUUID());
  const writer = await openMemoryBus({ storeDir: dir });
  const { coord } = await ensureCatalogue(writer);
  let epoch = 0;
  for (const [i, id] of ids.entries()) {
    const record: RevisionRecord = {
      revision_id: id,
      parent_revision_id: i === 0 ? null : (ids[i - 1] as string),
      created_at: new Date().toISOString(),
      created_by: 'ops',
      created_by_kind: 'operator',
      source: 'api',
      summary: `revision ${i}`,
      payload: { name: `company ${i}`, mission: 'x'.repeat(100_000) },
    };
    const { payload: _payload, ...head } = record;
    // As the config writer stores it (config.host.ts).
    await writer.publish(configSubjects.revisionStored, json(record), {
      headers: { [revisionHeadHeader]: JSON.stringify(head) },
    });
    epoch += 1;
    const pointer = {
      revision_id: id,
      parent_revision_id: record.parent_revision_id,
      epoch,
      activated_at: new Date().toISOString(),
    };
    if (epoch === 1) await coord.create(activePointerKey, json(pointer));
    else await coord.put(activePointerKey, json(pointer));
    await writer.publish(configSubjects.revisionActivated, json(pointer));
  }
  await writer.close();

  const bus = await openMemoryBus({ storeDir: dir });
  t.teardown(() => bus.close());
  const { coord: again } = await ensureCatalogue(bus);
  const view = await followConfig({
    bus,
    coord: again,
    stream: Streams.Config,
    subjects: {
      revisionStored: configSubjects.revisionStored,
      revisionActivated: configSubjects.revisionActivated,
    },
    activeKey: activePointerKey,
    logger: silent,
  });
  t.teardown(() => view.stop());
  const state = view.state;
  t.same(
    listRevisions(state, { limit: 10, offset: 0 }).map((m) => m.summary),
    ['revision 4', 'revision 3', 'revision 2', 'revision 1', 'revision 0'],
    'every revision listed, newest first',
  );
  t.same(
    state.payloads.stats(),
    {
      entries: 0,
      bytes: 0,
      active: { revision_id: ids[4], bytes: state.payloads.stats().active?.bytes, resident: true },
      loads: 1,
    },
    'no document held but the active one, read once',
  );
  t.ok((state.payloads.stats().active?.bytes ?? 0) > 100_000, 'the active document counted by its size');
  t.equal((activeRevision(state)?.payload as { name: string }).name, 'company 4');
  const first = await readRevision(state, ids[0] as string);
  t.equal((first?.payload as { name: string }).name, 'company 0', 'an old revision read on demand');
  t.equal(first?.summary, 'revision 0');
  t.equal(state.payloads.stats().loads, 2);

  const revisions = await startRevisions({ bus, logger: silent });
  t.teardown(() => revisions.stop());
  t.same(
    revisions.statuses().map((s) => [s.revision_id, s.state]),
    ids.map((id, i) => [id, i === 4 ? 'active' : 'superseded']),
    'the revision table from the headers',
  );
});
