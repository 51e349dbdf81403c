import t from 'tap';
import {
  activeRevision,
  applyConfigFact,
  configAudit,
  emptyConfigState,
  listRevisions,
  type ConfigFact,
} from '../../../projections/index.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = (n: number) => new Date(Date.UTC(2026, 10, 22, 0, 0, n)).toISOString();
const stored = (n: number): ConfigFact => ({
  kind: 'stored',
  record: {
    revision_id: id(n),
    parent_revision_id: n > 1 ? id(n - 1) : null,
    created_at: at(n),
    created_by: 'ops',
    created_by_kind: 'operator',
    source: 'api',
    summary: `change ${n}`,
    payload: { name: `Acme ${n}` },
  },
});
const activated = (n: number, epoch: number): ConfigFact => ({
  kind: 'activated',
  pointer: { revision_id: id(n), parent_revision_id: n > 1 ? id(n - 1) : null, epoch, activated_at: at(n) },
});
const fold = (facts: ConfigFact[]) => facts.reduce(applyConfigFact, emptyConfigState());

t.test('nothing is active before the first activation', async (t) => {
  const state = fold([stored(1)]);
  t.equal(activeRevision(state), null);
  t.match(listRevisions(state, { limit: 10, offset: 0 }), [
    { revision_id: id(1), is_active: false, activated_at: null },
  ]);
});

t.test('revisions list newest first with is_active and without payloads', async (t) => {
  const state = fold([stored(1), activated(1, 1), stored(2), activated(2, 2), stored(3)]);
  const rows = listRevisions(state, { limit: 10, offset: 0 });
  t.same(
    rows.map((r) => r.revision_id),
    [id(3), id(2), id(1)],
  );
  t.same(
    rows.map((r) => r.is_active),
    [false, true, false],
  );
  t.notOk(rows.some((r) => 'payload' in r));
  t.same(
    listRevisions(state, { limit: 1, offset: 1 }).map((r) => r.revision_id),
    [id(2)],
  );
  t.equal(activeRevision(state)?.summary, 'change 2');
});

t.test('an older or repeated activation never moves the pointer back', async (t) => {
  const state = fold([stored(1), stored(2), activated(2, 2), activated(1, 1), activated(2, 2)]);
  t.equal(state.active?.revision_id, id(2));
});

t.test('malformed facts and duplicate revisions are skipped, not fatal', async (t) => {
  const state = fold([
    stored(1),
    { kind: 'stored', record: { nope: true } },
    stored(1),
    { kind: 'activated', pointer: 'x' },
  ]);
  t.equal(state.order.length, 1);
  t.equal(state.active, null);
});

t.test('config_audit: limit default 50, clamped 1..500, non-number reads as default', async (t) => {
  const state = fold(Array.from({ length: 600 }, (_, i) => stored(i + 1)));
  t.equal(configAudit(state, undefined).length, 50);
  t.equal(configAudit(state, 'many').length, 50);
  t.equal(configAudit(state, '0').length, 1);
  t.equal(configAudit(state, 9999).length, 500);
  t.equal(configAudit(state, '7').length, 7);
  for (const raw of ['0x10', '1e2', 'Infinity', '', ' '])
    t.equal(configAudit(state, raw).length, 50, `${raw} is no number: the default`);
  t.equal(configAudit(state, '-3').length, 1, 'below the range: clamped');
  t.equal(configAudit(state, '2.9').length, 2, 'a fraction is cut');
  t.equal(configAudit(state, 7)[0]?.revision_id, id(600));
});

t.test('replaying the same facts from zero gives the same answer', async (t) => {
  const facts = [stored(1), activated(1, 1), stored(2), stored(3), activated(3, 2)];
  t.same(
    listRevisions(fold(facts), { limit: 9, offset: 0 }),
    listRevisions(fold(facts), { limit: 9, offset: 0 }),
  );
});
