/**
 * Pages and work items become tool skills (ops/skills.md): the title names the skill, the first line of
 * prose describes it, long bodies are cut and say so, one skill per name (the newest page keeps it), at
 * most 100 per source; vendor HTML reads as text; `{{name}}` placeholders take the company's variables.
 */
import t from 'tap';
import { htmlToText, skillSet, withVariables } from '../../../actors/index.js';
import {
  SKILL_CONTENT_MAX,
  SKILL_SET_BYTES_MAX,
  SKILLS_PER_SOURCE,
  type SkillSet,
} from '../../../schema/index.js';

const now = new Date('2026-12-02T12:00:00Z');
const page = (id: string, title: string, body: string, updated_at: string | null = null) => ({
  id,
  title,
  body,
  url: null,
  updated_at,
});

t.test('the title names the skill and the first line of prose describes it', async (t) => {
  const set = skillSet(
    'native',
    'TS',
    [
      page(
        '1',
        '  Deploying   with  the CLI ',
        '# Deploying\n\n```sh\nsvc up\n```\n- **Run** `svc deploy` [from CI](https://ci.example)\nMore.',
      ),
    ],
    now,
  );
  t.equal(set.skills.length, 1);
  t.match(set.skills[0], {
    name: 'Deploying with the CLI',
    description: 'Run svc deploy from CI',
    truncated: false,
    source_id: '1',
  });
  t.equal(set.synced_at, now.toISOString());
});

t.test(
  'emphasis is dropped from the description, underscores inside names and placeholders kept',
  async (t) => {
    const [skill] = skillSet(
      'native',
      'TS',
      [page('1', 'Logs', '_Query_ the log_store at {{logs_url}}, __now__.')],
      now,
    ).skills;
    t.equal(skill?.description, 'Query the log_store at {{logs_url}}, now.');
  },
);

t.test('a body past the limit is cut and marked truncated; an untitled page is no skill', async (t) => {
  const set = skillSet(
    'wiki',
    'TS',
    [page('1', 'Long', 'x'.repeat(SKILL_CONTENT_MAX + 10)), page('2', '   ', 'body')],
    now,
  );
  t.equal(set.skills.length, 1);
  t.equal(set.skills[0]?.content.length, SKILL_CONTENT_MAX);
  t.equal(set.skills[0]?.truncated, true);
});

t.test(
  'one skill per name, case aside: the newest page keeps it, the other is counted left out',
  async (t) => {
    const set = skillSet(
      'tracker-b',
      'TS',
      [
        page('old', 'Rollback', 'old way', '2026-01-01T00:00:00Z'),
        page('new', 'ROLLBACK', 'new way', '2026-06-01T00:00:00Z'),
      ],
      now,
    );
    t.same(
      set.skills.map((s) => [s.source_id, s.content]),
      [['new', 'new way']],
    );
    t.equal(set.left_out, 1);
  },
);

t.test('newer is by instant, not by how the vendor wrote it', async (t) => {
  const set = skillSet(
    'wiki',
    'TS',
    [
      page('east', 'Oncall', 'written 23:00Z', '2026-06-01T01:00:00+02:00'),
      page('west', 'Oncall', 'written 23:30Z', '2026-05-31T23:30:00Z'),
    ],
    now,
  );
  t.equal(set.skills[0]?.source_id, 'west');
});

t.test('at most SKILLS_PER_SOURCE skills, the newest kept, sorted by name', async (t) => {
  const pages = Array.from({ length: SKILLS_PER_SOURCE + 5 }, (_, i) =>
    page(
      String(i),
      `Skill ${String(i).padStart(3, '0')}`,
      'body',
      new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    ),
  );
  const set: SkillSet = skillSet('native', 'TS', pages, now);
  t.equal(set.skills.length, SKILLS_PER_SOURCE);
  t.equal(set.left_out, 5);
  t.notOk(
    set.skills.some((s) => ['Skill 000', 'Skill 004'].includes(s.name)),
    'the oldest five are left out',
  );
  t.same(
    set.skills.map((s) => s.name),
    [...set.skills.map((s) => s.name)].sort(),
  );
});

t.test(
  'a set stays within its byte budget however wide its characters: the newest that fit are kept',
  async (t) => {
    const wide = '語'.repeat(SKILL_CONTENT_MAX); // 3 bytes each in UTF-8
    const pages = Array.from({ length: 100 }, (_, i) =>
      page(String(i), `Skill ${i}`, wide, new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()),
    );
    const set = skillSet('wiki', 'TS', pages, now);
    t.ok(Buffer.byteLength(JSON.stringify(set)) <= SKILL_SET_BYTES_MAX + 1024, 'the encoded set fits');
    t.equal(set.skills.length + set.left_out, 100);
    t.ok(set.skills.length > 0 && set.left_out > 0);
    t.ok(
      set.skills.some((s) => s.name === 'Skill 99'),
      'the newest is kept',
    );
    t.notOk(
      set.skills.some((s) => s.name === 'Skill 0'),
      'the oldest is left out',
    );
  },
);

t.test('vendor HTML reads as text: blocks, lists, headings, entities and code kept verbatim', async (t) => {
  const html =
    '<h2>Use &amp; abuse</h2><p>First&nbsp;line<br/>second &lt;b&gt; &#x41;&#66;</p><ul><li>one</li><li>two</li></ul>' +
    '<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[if (a < b) { run(); }]]></ac:plain-text-body></ac:structured-macro>' +
    '<script>alert(1)</script>';
  t.equal(
    htmlToText(html),
    '## Use & abuse\nFirst line\nsecond <b> AB\n\n- one\n- two\n\n```\nif (a < b) { run(); }\n```',
  );
});

t.test('{{name}} placeholders take the variables; unknown ones stay as written', async (t) => {
  t.equal(
    withVariables('See {{ wiki_base_url }}/x and {{missing}} and {{wiki_base_url}}.', {
      wiki_base_url: 'https://w',
    }),
    'See https://w/x and {{missing}} and https://w.',
  );
  t.equal(withVariables('{{__proto__}}', {}), '{{__proto__}}', 'only the map’s own names');
});
