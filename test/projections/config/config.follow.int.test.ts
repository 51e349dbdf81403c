/**
 * The config read model when the active pointer runs ahead of SVC_CONFIG (issue #15: while a stream
 * elected a leader, nodes answered 404 `no_active_revision` because the pointer watch had moved to a
 * revision whose record the stalled stream follower had not delivered). A pointer naming an unread
 * revision waits for its record: the prior revision stays active, and the new one takes over on arrival.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import t from 'tap';
import { activePointerKey, configSubjects } from '../../../actors/index.js';
import { ensureCatalogue, Streams } from '../../../bus/index.js';
import { openMemoryBus } from '../../../bus/memory/index.js';
import { activeRevision, followConfig } from '../../../projections/index.js';
import type { ActivePointer, RevisionRecord } from '../../../schema/index.js';

const enc = new TextEncoder();
const json = (value: unknown): Uint8Array => enc.encode(JSON.stringify(value));

const record = (id: string, parent: string | null, name: string): RevisionRecord => ({
  revision_id: id,
  parent_revision_id: parent,
  created_at: new Date().toISOString(),
  created_by: 'ops',
  created_by_kind: 'operator',
  source: 'api',
  summary: name,
  payload: { name },
});

const pointer = (id: string, parent: string | null, epoch: number): ActivePointer => ({
  revision_id: id,
  parent_revision_id: parent,
  epoch,
  activated_at: new Date().toISOString(),
});

t.test(
  'a pointer ahead of its record keeps the prior revision active until the record arrives',
  async (t) => {
    const bus = await openMemoryBus();
    t.teardown(() => bus.close());
    const { coord } = await ensureCatalogue(bus);
    const first = randomUUID();
    await bus.publish(configSubjects.revisionStored, json(record(first, null, 'one')));
    await coord.create(activePointerKey, json(pointer(first, null, 1)));
    await bus.publish(configSubjects.revisionActivated, json(pointer(first, null, 1)));
    const view = await followConfig({
      bus,
      coord,
      stream: Streams.Config,
      subjects: {
        revisionStored: configSubjects.revisionStored,
        revisionActivated: configSubjects.revisionActivated,
      },
      activeKey: activePointerKey,
      logger: pino({ level: 'silent' }),
    });
    t.teardown(() => view.stop());
    t.equal(activeRevision(view.state)?.revision_id, first, 'the first revision is active');

    // The pointer moves to a revision whose record this node has not read.
    const second = randomUUID();
    // A watch opened after the view's sees the change after it: then the view has had it too.
    let seen: () => void = () => undefined;
    const delivered = new Promise<void>((resolve) => (seen = resolve));
    const probe = await coord.watch(() => seen(), { key: activePointerKey, initial: false });
    t.teardown(() => probe.stop());
    const current = await coord.get(activePointerKey);
    await coord.update(activePointerKey, json(pointer(second, first, 2)), current!.revision);
    await delivered;
    t.equal(view.state.active?.epoch, 1, 'the unread revision does not become active');
    t.equal(activeRevision(view.state)?.revision_id, first, 'the prior revision still answers');

    await bus.publish(configSubjects.revisionStored, json(record(second, first, 'two')));
    t.ok(
      await view.until((s) => s.active?.revision_id === second && activeRevision(s) !== null, 30_000),
      'once its record arrives, the pointer takes effect',
    );
    t.equal(view.state.active?.epoch, 2);
  },
);
