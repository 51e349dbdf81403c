// A full write that leaves `handle` out keeps each seat's stored handle: the seat stays the same seat.
import t from 'tap';
import { keepStoredHandles } from '../../schema/company/keep-handles.js';

const stored = {
  name: 'Co',
  roles: [
    { name: 'Ada', handle: 'ada-lovelace' },
    { name: 'Søren Berg', handle: 's-ren-berg' },
  ],
  units: [
    { name: 'Eng', roles: [{ name: 'Grace Hopper', handle: 'grace', kind: 'human', email: 'g@x.example' }] },
  ],
};

t.test('a seat sent without handle keeps the handle its namesake has in the stored document', async (t) => {
  const incoming = {
    name: 'Co',
    roles: [{ name: 'Ada', llm: 'primary' }, { name: 'Søren Berg' }],
    units: [{ name: 'Eng', roles: [{ name: 'Grace Hopper', kind: 'human', email: 'g@x.example' }] }],
  };
  const kept = keepStoredHandles(incoming, stored) as typeof stored;
  t.same(kept.roles[0], { name: 'Ada', handle: 'ada-lovelace', llm: 'primary' });
  t.same(Object.keys(kept.roles[0] ?? {}), ['name', 'handle', 'llm'], 'handle written right after name');
  t.equal(kept.roles[1]?.handle, 's-ren-berg', 'a handle an older build derived is kept');
  t.equal(kept.units[0]?.roles[0]?.handle, 'grace');
  t.notOk('handle' in (incoming.roles[0] ?? {}), 'the sent document is not changed');
});

t.test('a written handle, a new name or an ambiguous name is left as sent', async (t) => {
  const incoming = {
    name: 'Co',
    roles: [
      { name: 'Ada', handle: 'ada' }, // written: the operator's choice wins
      { name: 'Søren' }, // no namesake
    ],
  };
  t.same(keepStoredHandles(incoming, stored), incoming);
  const twice = { name: 'Co', roles: [{ name: 'Ada' }, { name: 'Ada', unit: 'Eng' }] };
  t.same(keepStoredHandles(twice, stored), twice, 'two incoming seats of one name: neither is guessed');
  const storedTwice = {
    roles: [
      { name: 'Ada', handle: 'a1' },
      { name: 'Ada', handle: 'a2' },
    ],
  };
  t.same(keepStoredHandles({ roles: [{ name: 'Ada' }] }, storedTwice), { roles: [{ name: 'Ada' }] });
});

t.test('a stored handle another incoming seat writes for itself is not given twice', async (t) => {
  const incoming = { name: 'Co', roles: [{ name: 'Ada' }, { name: 'Someone else', handle: 'ada-lovelace' }] };
  t.same(keepStoredHandles(incoming, stored), incoming);
});

t.test('what is not a document is passed through', async (t) => {
  t.equal(keepStoredHandles('x', stored), 'x');
  t.same(keepStoredHandles({ roles: [{ name: 'Ada' }] }, null), { roles: [{ name: 'Ada' }] });
});
