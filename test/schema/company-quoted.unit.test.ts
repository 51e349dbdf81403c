import t from 'tap';
import { baseCompany, platform, write, type Doc } from '../fixtures/company/documents.js';
import { unresolvedReferences, validateCompany } from '../../schema/company/index.js';
import { QUOTED_MAX } from '../../schema/text-grammars.js';

const LONG = 100_000;
/** The longest quote an answer may carry: QUOTED_MAX code points and the cut mark. */
const QUOTE_LIMIT = QUOTED_MAX + 1;

/**
 * Every string an answer quotes back (problems, warnings and `derived`), leaving out `path` and `segments`,
 * which locate a field in the document the sender wrote.
 */
function quotes(value: unknown, key = ''): string[] {
  if (key === 'path' || key === 'segments') return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap((v) => quotes(v));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => quotes(v, k));
  return [];
}

/** Quotes longer than the cut, as `field: length` for a readable failure. */
function uncut(answer: unknown): string[] {
  // Messages are sentences around a quote; a run of one letter is what the sender wrote.
  return quotes(answer)
    .filter((s) => /(.)\1{80}/su.test(s) || (!s.includes(' ') && Array.from(s).length > QUOTE_LIMIT))
    .map((s) => `${s.slice(0, 30)}… (${s.length})`);
}

const answerOf = (doc: unknown) => {
  const r = write(doc);
  return { problems: r.problems, warnings: r.warnings, derived: r.derived };
};

const cases: ReadonlyArray<{ what: string; edit: (doc: Doc) => void }> = [
  {
    what: 'a long unit name, seats in it with problems (unit, derived units, seats, lead_of, parent)',
    edit: (doc) => {
      doc['units'][0]['name'] = 'u'.repeat(LONG);
      platform(doc)['roles'][0]['surprise'] = 1;
      platform(doc)['roles'][1]['surprise'] = 1;
    },
  },
  {
    what: 'a long written handle on two seats (seat, derived handle, the taken-handle message)',
    edit: (doc) => {
      platform(doc)['roles'][0]['handle'] = 'h'.repeat(LONG);
      platform(doc)['roles'][1]['handle'] = 'h'.repeat(LONG);
      doc['units'][0]['lead'] = 'h'.repeat(LONG);
    },
  },
  {
    what: 'dangling references to long names (to, from)',
    edit: (doc) => {
      doc['roles'][0]['unit'] = 'z'.repeat(LONG);
      doc['roles'][0]['manages'] = ['y'.repeat(LONG)];
      platform(doc)['lead'] = 'x'.repeat(LONG);
    },
  },
  {
    what: 'a did-you-mean naming a long unit',
    edit: (doc) => {
      doc['units'][0]['name'] = 'a'.repeat(300);
      doc['roles'][0]['unit'] = `${'a'.repeat(299)}b`;
    },
  },
  {
    what: 'an unknown field with a long key',
    edit: (doc) => {
      doc['k'.repeat(LONG)] = 1;
    },
  },
  {
    what: 'an unknown timezone',
    edit: (doc) => {
      doc['timezone'] = 't'.repeat(LONG);
    },
  },
  {
    what: 'a human lead of a lead schedule with a long handle, contact held twice',
    edit: (doc) => {
      doc['units'][0]['roles'][0]['handle'] = 'w'.repeat(LONG);
      doc['units'][0]['lead'] = 'w'.repeat(LONG);
      (doc['units'][0]['roles'] as Doc[]).push({
        name: 'Ida',
        kind: 'human',
        contact: { chat_user_id: 'U1' },
      });
      doc['units'][0]['schedules'] = [
        { name: 'standup', cron: '0 9 * * 1', task: 'Stand up', target: 'lead' },
      ];
    },
  },
  {
    what: 'two units with long names declaring one project',
    edit: (doc) => {
      doc['units'][0]['name'] = 'p'.repeat(LONG);
      doc['units'][0]['integrations'] = { work: { project: 'ACME' } };
      platform(doc)['name'] = 'q'.repeat(LONG);
      platform(doc)['integrations'] = { work: { project: 'ACME' } };
    },
  },
  {
    what: 'a transport with a long name selecting a long seat',
    edit: (doc) => {
      doc['notification_transports'] = {
        ['n'.repeat(LONG)]: {
          type: 'webhook',
          url: 'https://hooks.example.com/x',
          seats: ['s'.repeat(LONG)],
        },
      };
    },
  },
];

t.test('problems, warnings and derived quote every name and value cut at QUOTED_MAX', async (t) => {
  for (const { what, edit } of cases) {
    const doc = baseCompany();
    edit(doc);
    const answer = answerOf(doc);
    t.ok(answer.problems.length + answer.warnings.length > 0, `${what}: something is reported`);
    t.same(uncut(answer), [], what);
  }
});

t.test('a cut quote keeps its first QUOTED_MAX characters and marks the cut', async (t) => {
  const doc = baseCompany();
  doc['units'][0]['name'] = `${'ü'.repeat(QUOTED_MAX)}${'u'.repeat(LONG)}`;
  doc['units'][0]['roles'][0]['surprise'] = 1;
  const answer = answerOf(doc);
  const at = answer.problems.find((p) => p.path.endsWith('surprise'));
  const cut = `${'ü'.repeat(QUOTED_MAX)}…`;
  // Lengths first: a failure then prints a number, not the 100,000 characters.
  for (const [what, value] of [
    ['problem unit', at?.unit],
    ['derived unit name', answer.derived?.units[0]?.name],
    ['derived parent', answer.derived?.units[1]?.parent],
  ] as const) {
    t.equal(value?.length, cut.length, `${what}: cut`);
    t.ok(value === cut, `${what}: its first ${QUOTED_MAX} characters, marked`);
  }
});

t.test('a name within the cut comes back whole', async (t) => {
  const doc = baseCompany();
  doc['units'][0]['name'] = 'e'.repeat(QUOTED_MAX);
  platform(doc)['roles'][0]['surprise'] = 1;
  const answer = answerOf(doc);
  t.equal(answer.derived?.units[0]?.name, 'e'.repeat(QUOTED_MAX));
});

t.test('an unresolved reference with a long variable name is quoted cut', async (t) => {
  const name = `V${'v'.repeat(LONG)}`;
  const warnings = unresolvedReferences({ name: 'Acme', mission: `\${${name}}` }, () => undefined);
  t.equal(warnings.length, 1);
  t.same(uncut(warnings), []);
});

t.test('the document a valid write keeps holds its names whole', async (t) => {
  const doc = baseCompany();
  doc['units'][0]['name'] = 'd'.repeat(90);
  const result = validateCompany(doc, { mode: 'write' });
  t.ok(result.valid);
  t.equal((result.document as Doc)['units'][0]['name'], 'd'.repeat(90));
});
