/**
 * Admission rule A14: a notification transport's name and an extension's name (map keys) are at most 64
 * characters, a native project's display name at most 100, and none holds a control character; A15: a
 * `skill_variables` name is one a `{{name}}` placeholder can spell. Ratcheting:
 * a stored revision holding one still loads, and a write that keeps it (editing another entry of the same map
 * included) goes through.
 */
import t from 'tap';
import { baseCompany, platform, runnable, write, type Doc } from '../fixtures/company/documents.js';
import { validateCompany } from '../../schema/company/index.js';

const webhook = { type: 'webhook', url: 'https://hooks.example.com/svc' };

/** Each name: where its problem sits, its bound, and how to set it on a base company. */
const names: ReadonlyArray<{
  what: string;
  path: string;
  max: number;
  set: (doc: Doc, name: string) => void;
}> = [
  {
    what: 'transport name',
    path: 'notification_transports',
    max: 64,
    set: (doc, name) => (doc['notification_transports'] = { ops: webhook, [name]: webhook }),
  },
  {
    what: 'extension name',
    path: 'extensions',
    max: 64,
    set: (doc, name) => (doc['extensions'] = { audit: { level: 1 }, [name]: {} }),
  },
  {
    what: 'project display name',
    path: 'units[0].children[0].integrations.work.name',
    max: 100,
    set: (doc, name) => (platform(doc)['integrations'] = { work: { project: 'PLAT', name } }),
  },
];

t.test('a name past its bound refuses a new write, out_of_range, without quoting it', async (t) => {
  for (const { what, path, max, set } of names) {
    for (const length of [max + 1, 100_000]) {
      const doc = baseCompany();
      set(doc, 'n'.repeat(length));
      const result = write(doc);
      t.notOk(result.valid, `${what} of ${length}`);
      const at = result.problems.filter((p) => p.path === path);
      t.equal(at.length, 1, `${what} of ${length}: one problem at ${path}`);
      t.equal(at[0]?.kind, 'out_of_range', what);
      t.match(at[0]?.message ?? '', `at most ${max} characters`, what);
      t.notMatch(at[0]?.message ?? '', 'nnnnnnnnnn', `${what}: the name is not quoted`);
    }
  }
});

t.test('a name holding a control character or a lone surrogate refuses a new write', async (t) => {
  for (const { what, path, set } of names) {
    for (const name of ['ops\nalerts', 'tab\there', 'nul\u0000', 'del\u007f', 'nel\u0085', 'half\ud800']) {
      const doc = baseCompany();
      set(doc, name);
      const at = write(doc).problems.filter((p) => p.path === path);
      t.match(at, [{ kind: 'shape', message: /control characters/ }], `${what} ${JSON.stringify(name)}`);
    }
  }
});

t.test('names within their bound, in any script and with spaces, are accepted', async (t) => {
  for (const { what, path, max, set } of names) {
    for (const name of ['n'.repeat(max), 'Équipe Nord (Paris)', 'pager-duty.main_2']) {
      const doc = baseCompany();
      set(doc, name);
      t.same(
        write(doc).problems.filter((p) => p.path === path),
        [],
        `${what} ${name.slice(0, 20)} (${name.length})`,
      );
    }
  }
});

t.test('a stored revision holding one still loads, and writes that keep it go through', async (t) => {
  for (const { what, path, set } of names) {
    const stored = baseCompany();
    set(stored, `${'n'.repeat(3000)}\n`);
    const reload = runnable(stored);
    t.ok(reload.valid, `${what}: a reload runs it`);
    t.match(
      reload.warnings.filter((w) => w.path === path),
      [{ kind: 'admission' }],
      `${what}: warned on reload`,
    );

    const active = { document: stored, problems: write(stored).problems };
    t.ok(active.problems.length > 0, `${what}: the stored revision holds the problem`);
    const edit = structuredClone(stored);
    edit['roles'][0]['goal'] = 'Another goal';
    t.ok(validateCompany(edit, { mode: 'write', active }).valid, `${what}: an edit elsewhere goes through`);

    const renamed = baseCompany();
    set(renamed, `${'m'.repeat(3000)}\n`);
    t.notOk(validateCompany(renamed, { mode: 'write', active }).valid, `${what}: a new one is refused`);
  }
});

t.test('editing, adding or removing another entry of a map that holds a long key goes through', async (t) => {
  const long = 'k'.repeat(3000);
  const stored = baseCompany();
  stored['notification_transports'] = { ops: webhook, [long]: webhook };
  stored['extensions'] = { audit: { level: 1 }, [long]: {} };
  stored['providers']['llm'][long] = { type: 'anthropic', model: 'claude-sonnet-4-5' };
  const active = { document: stored, problems: write(stored).problems };
  t.equal(active.problems.length, 3, 'the stored revision holds three long keys');

  const edit = structuredClone(stored);
  edit['notification_transports']['ops'] = { ...webhook, url: 'https://hooks.example.com/other' };
  edit['notification_transports']['pager'] = webhook;
  delete edit['extensions']['audit'];
  edit['providers']['llm']['main']['model'] = 'claude-opus-4-1';
  const kept = validateCompany(edit, { mode: 'write', active });
  t.same(kept.problems, [], 'nothing is refused');
  t.equal(kept.warnings.filter((w) => w.kind === 'admission').length, 3, 'each held as a warning');

  const another = structuredClone(stored);
  another['notification_transports']['l'.repeat(3000)] = webhook;
  another['providers']['llm']['p'.repeat(65)] = { type: 'anthropic', model: 'claude-sonnet-4-5' };
  t.same(
    validateCompany(another, { mode: 'write', active })
      .problems.map((p) => p.path)
      .sort(),
    ['notification_transports', 'providers.llm'],
    'a new long key in the same map is refused',
  );
});

t.test(
  'A15: a skill variable no {{name}} placeholder can spell is refused on a write, warned on a reload, and held while the active revision has it',
  async (t) => {
    const stored = baseCompany();
    stored['skill_variables'] = { wiki_base_url: 'https://wiki.example', 'logs-url': 'https://logs.example' };
    t.match(write(stored).problems, [{ path: 'skill_variables', kind: 'invalid', message: /\{\{name\}\}/ }]);
    t.notMatch(JSON.stringify(write(stored).problems), 'logs-url', 'the key is not quoted');
    const reload = runnable(stored);
    t.ok(reload.valid, 'a reload runs it');
    t.match(reload.warnings, [{ path: 'skill_variables', kind: 'admission' }]);

    const active = { document: stored, problems: write(stored).problems };
    const edit = structuredClone(stored);
    edit['skill_variables']['wiki_base_url'] = 'https://wiki2.example';
    t.same(
      validateCompany(edit, { mode: 'write', active }).problems,
      [],
      'an edit of another entry goes through',
    );
    edit['skill_variables']['2fa'] = 'x';
    t.match(validateCompany(edit, { mode: 'write', active }).problems, [{ path: 'skill_variables' }]);
  },
);
