/**
 * Skill promotion, pure parts: a learned skill is due once turns reviewed as done read it often enough, once
 * per version; the promoted set keeps one skill per id and per name, newest first, bounded.
 */
import t from 'tap';
import { countUses, promote, type LearnedSkill, type PromotedSkill } from '../../../actors/skills/index.js';
import { PROMOTE_AFTER_USES, PROMOTED_MAX } from '../../../actors/skills/skills.promotion.js';
import { SKILL_SET_BYTES_MAX } from '../../../schema/index.js';

const skill = (id: string, name: string, version = 1): LearnedSkill => ({
  id,
  name,
  description: `when ${name}`,
  content: `1. ${name}`,
  tool_sequence: ['files_echo'],
  version,
  created_at: '2026-12-01T10:00:00.000Z',
  updated_at: '2026-12-01T10:00:00.000Z',
});

t.test('a learned skill is due after enough successful reads, once per version', async (t) => {
  t.equal(PROMOTE_AFTER_USES, 2);
  const learned = [skill('a', 'Echo twice'), skill('b', 'Deploy')];
  const first = countUses({}, learned, ['echo TWICE', 'some synced page']);
  t.same(first, { uses: { a: { uses: 1, promoted: 0 } }, due: [], changed: true });
  const second = countUses(first.uses, learned, ['Echo twice']);
  t.same(
    second.due.map((s) => s.id),
    ['a'],
  );
  t.same(second.uses, { a: { uses: 2, promoted: 1 } });
  const third = countUses(second.uses, learned, ['Echo twice']);
  t.same(third.due, [], 'the same version is not promoted again');
  const refined = countUses(third.uses, [skill('a', 'Echo twice', 2), learned[1]!], ['Echo twice']);
  t.same(
    refined.due.map((s) => [s.id, s.version]),
    [['a', 2]],
    'a refined version is',
  );
});

t.test('reading no learned skill changes nothing; a skill no longer learned drops out', async (t) => {
  const learned = [skill('a', 'Echo twice')];
  t.same(countUses({ a: { uses: 1, promoted: 0 } }, learned, ['other']), {
    uses: { a: { uses: 1, promoted: 0 } },
    due: [],
    changed: false,
  });
  t.same(countUses({ gone: { uses: 5, promoted: 1 } }, learned, []), { uses: {}, due: [], changed: true });
});

t.test('the promoted set keeps one skill per id and name, newest first, bounded', async (t) => {
  const now = new Date('2026-12-02T10:00:00Z');
  const held: PromotedSkill[] = [
    { ...skill('a', 'Echo twice'), from: 'ada', promoted_at: '2026-12-01T00:00:00.000Z' },
    { ...skill('c', 'Deploy'), from: 'cy', promoted_at: '2026-12-01T00:00:00.000Z' },
  ];
  const next = promote(held, [skill('b', 'deploy', 3)], 'bob', now);
  t.same(
    next.map((s) => [s.id, s.from]),
    [
      ['b', 'bob'],
      ['a', 'ada'],
    ],
    'bob’s deploy replaces cy’s by name',
  );
  t.equal(next[0]!.promoted_at, '2026-12-02T10:00:00.000Z');
  const many = Array.from({ length: PROMOTED_MAX + 5 }, (_, i) => skill(`s${i}`, `skill ${i}`));
  t.equal(promote([], many, 'ada', now).length, PROMOTED_MAX);
});

t.test('the promoted set fits one bucket value whatever script its skills are in', async (t) => {
  const wide = Array.from({ length: PROMOTED_MAX }, (_, i) => ({
    ...skill(`w${i}`, `技能 ${i}`),
    content: '手順'.repeat(4_000),
  }));
  const set = promote([], wide, 'ada', new Date());
  const bytes = Buffer.byteLength(JSON.stringify({ skills: set }));
  t.ok(bytes <= SKILL_SET_BYTES_MAX, `${bytes} bytes`);
  t.ok(set.length > 0 && set.length < PROMOTED_MAX, 'the newest that fit are kept');
  t.equal(set[0]!.id, 'w0');
});
