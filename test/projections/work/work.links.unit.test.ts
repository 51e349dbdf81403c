/**
 * A link read back names its target by the key, also when the record kept the reference as it was typed
 * (records written before writes stored the canonical key).
 */
import t from 'tap';
import { defaultFields, emptyWorkState, foldWork, type WorkRecord } from '../../../schema/index.js';
import { itemDetail } from '../../../projections/index.js';

const created = (id: string, number: number, links: Array<{ kind: 'blocks'; item: string }>) =>
  ({
    kind: 'item.created',
    op_id: `op-${id}`,
    at: '2026-01-01T00:00:00.000Z',
    actor: 'ada',
    turn_id: null,
    id,
    project: 'ENG',
    key: `ENG-${number}`,
    number,
    status: 'backlog',
    fields: { ...defaultFields(), title: `item ${number}`, links },
  }) as WorkRecord;

t.test('a link stored as typed reads back by the canonical key', async (t) => {
  const state = emptyWorkState();
  foldWork(state, created('a', 1, []), 1);
  foldWork(state, created('b', 2, [{ kind: 'blocks', item: 'eng-1' }]), 2);
  const detail = itemDetail(state, state.items.get('b')!);
  t.same(detail.links, [{ kind: 'blocks', item: 'ENG-1', id: 'a', key: 'ENG-1', status: 'backlog' }]);
});
