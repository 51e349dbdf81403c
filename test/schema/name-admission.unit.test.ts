import t from 'tap';
import { baseCompany, platform, runnable, write, type Doc } from '../fixtures/company/documents.js';
import { validateCompany } from '../../schema/company/index.js';

/** Each identifying name, where it is written, its bound, and how to set it on a base company. */
const names: ReadonlyArray<{
  what: string;
  path: string;
  max: number;
  set: (doc: Doc, name: string) => void;
}> = [
  { what: 'company name', path: 'name', max: 100, set: (doc, name) => (doc['name'] = name) },
  {
    what: 'unit name',
    path: 'units[0].children[0].name',
    max: 100,
    set: (doc, name) => (platform(doc)['name'] = name),
  },
  {
    what: 'seat name',
    path: 'units[0].children[0].roles[0].name',
    max: 100,
    set: (doc, name) => {
      platform(doc)['roles'][0] = { name, handle: 'bo-agent' };
    },
  },
  {
    what: 'tool-server name',
    path: 'mcp_servers[0].name',
    max: 64,
    set: (doc, name) => (doc['mcp_servers'] = [{ name, command: 'npx' }]),
  },
  {
    what: 'provider key',
    path: 'providers.llm',
    max: 64,
    set: (doc, name) => {
      doc['providers']['llm'][name] = { type: 'anthropic', model: 'claude-sonnet-4-5' };
    },
  },
];

t.test(
  'a name past its bound refuses a new write at its path, out_of_range, without quoting it',
  async (t) => {
    for (const { what, path, max, set } of names) {
      for (const length of [max + 1, 100_000]) {
        const doc = baseCompany();
        set(doc, 'n'.repeat(length));
        const result = write(doc);
        t.notOk(result.valid, `${what} of ${length}`);
        const at = result.problems.filter((p) => p.path === path);
        t.match(at, [{ kind: 'out_of_range', message: new RegExp(`at most ${max} characters`) }], what);
        t.equal(at.length, 1, `${what} of ${length}: one problem at its path`);
        t.notMatch(at[0]?.message ?? '', 'nnnnnnnnnn', `${what}: the name is not quoted`);
      }
    }
  },
);

t.test('names within their bound, in any script and with spaces, are accepted', async (t) => {
  for (const { what, max, set } of names) {
    for (const name of [
      'n'.repeat(max),
      what === 'tool-server name' || what === 'provider key' ? 'main-2' : 'Équipe Nord (Paris)',
    ]) {
      const doc = baseCompany();
      set(doc, name);
      t.same(
        write(doc).problems.filter((p) => p.kind === 'out_of_range'),
        [],
        `${what} of ${name.length}`,
      );
    }
  }
});

t.test(
  'a stored revision with a long name still loads, and a write that keeps it goes through',
  async (t) => {
    for (const { what, path, set } of names) {
      const stored = baseCompany();
      set(stored, 'n'.repeat(3000));
      const reload = runnable(stored);
      t.ok(reload.valid, `${what}: a reload runs it`);
      t.match(
        reload.warnings.filter((w) => w.path === path),
        [{ kind: 'admission' }],
        `${what}: warned about on reload`,
      );

      const active = { document: stored, problems: write(stored).problems };
      const edit = baseCompany();
      set(edit, 'n'.repeat(3000));
      edit['roles'][0]['goal'] = 'Another goal';
      const kept = validateCompany(edit, { mode: 'write', active });
      t.ok(kept.valid, `${what}: an edit elsewhere is not refused for the name the active revision holds`);
      t.match(
        kept.warnings.filter((w) => w.path === path),
        [{ kind: 'admission' }],
        `${what}: held as a warning`,
      );

      const renamed = baseCompany();
      set(renamed, 'm'.repeat(3000));
      t.notOk(
        validateCompany(renamed, { mode: 'write', active }).valid,
        `${what}: a new long name is refused`,
      );
    }
  },
);
