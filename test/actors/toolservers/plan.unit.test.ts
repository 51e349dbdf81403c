import t from 'tap';
import { planInstances, resolveInstance, scrub } from '../../../actors/index.js';
import { Company } from '../../../schema/index.js';

const doc = Company.parse({
  name: 'Acme',
  mcp_servers: [
    { name: 'files', command: 'files-server', args: ['--root', '${ROOT}'], env: { A: '1' } },
    {
      name: 'gh',
      shared: false,
      command: 'gh-server',
      args: ['--token', '${GH_TOKEN}'],
      env: { GH_TOKEN: 'entry-default', MODE: 'ro' },
      tool_prefix: 'gh_',
    },
    {
      name: 'wiki',
      shared: false,
      url: 'https://wiki.example/mcp',
      headers: { Authorization: 'Bearer ${WIKI_TOKEN}' },
    },
  ],
  roles: [
    { name: 'Ada', mcp_env: { gh: { GH_TOKEN: '${ADA_GH}' }, wiki: { WIKI_TOKEN: 'ada-wiki-token' } } },
    { name: 'Ada', handle: 'ada' },
    { name: 'Grace', kind: 'human' },
    { name: 'Floating', unit: 'no-such-unit' },
  ],
  units: [{ name: 'eng', type: 'team', mcp_env: { gh: { MODE: 'rw' } }, roles: [{ name: 'Bob' }] }],
});

t.test(
  'the plan: a shared instance, and one per agent seat (first of a handle) for the others',
  async (t) => {
    const plan = planInstances(doc);
    t.same(
      [...plan.instances.keys()],
      ['files', 'gh@ada', 'gh@floating', 'gh@bob', 'wiki@ada', 'wiki@floating', 'wiki@bob'],
    );
    t.same(plan.instances.get('gh@ada')!.env, { GH_TOKEN: '${ADA_GH}', MODE: 'ro' });
    t.same(plan.instances.get('gh@bob')!.env, { GH_TOKEN: 'entry-default', MODE: 'rw' });
    t.same(
      plan.instances.get('gh@floating')!.env,
      { GH_TOKEN: 'entry-default', MODE: 'ro' },
      'an unknown unit inherits nothing',
    );
    t.equal(plan.instances.get('gh@ada')!.prefix, 'gh_');
  },
);

t.test(
  'resolution: references from the seat env first, then the resolver; secrets collected; prefix not in the fingerprint',
  async (t) => {
    const plan = planInstances(doc);
    const resolve = (name: string) => ({ ADA_GH: 'ada-gh-token', ROOT: '/srv/files' })[name];
    const gh = resolveInstance(plan.instances.get('gh@ada')!, resolve);
    t.same(gh.launch, {
      kind: 'stdio',
      command: 'gh-server',
      args: ['--token', 'ada-gh-token'],
      env: { GH_TOKEN: 'ada-gh-token', MODE: 'ro' },
    });
    t.ok(gh.secrets.includes('ada-gh-token'));
    t.notOk(gh.secrets.includes('ro'), 'values too short to scrub are left');
    const files = resolveInstance(plan.instances.get('files')!, resolve);
    t.same(files.launch, {
      kind: 'stdio',
      command: 'files-server',
      args: ['--root', '/srv/files'],
      env: { A: '1' },
    });
    const wiki = resolveInstance(plan.instances.get('wiki@ada')!, resolve);
    t.same(wiki.launch, {
      kind: 'http',
      url: 'https://wiki.example/mcp',
      headers: { Authorization: 'Bearer ada-wiki-token' },
    });
    t.ok(wiki.secrets.includes('Bearer ada-wiki-token'));

    const renamed = planInstances({
      ...doc,
      mcp_servers: (doc.mcp_servers ?? []).map((s) =>
        s.name === 'gh' ? { ...s, tool_prefix: 'github_' } : s,
      ),
    });
    t.equal(resolveInstance(renamed.instances.get('gh@ada')!, resolve).fingerprint, gh.fingerprint);
    const reordered = planInstances({
      ...doc,
      roles: [
        { name: 'Ada', mcp_env: { wiki: { WIKI_TOKEN: 'ada-wiki-token' }, gh: { GH_TOKEN: '${ADA_GH}' } } },
      ],
    });
    t.equal(
      resolveInstance(reordered.instances.get('gh@ada')!, resolve).fingerprint,
      gh.fingerprint,
      'key order does not matter',
    );
    const rotated = resolveInstance(plan.instances.get('gh@ada')!, (name) =>
      name === 'ADA_GH' ? 'rotated' : undefined,
    );
    t.not(rotated.fingerprint, gh.fingerprint, 'a new value behind a reference restarts the instance');
  },
);

t.test('scrub replaces every secret, the longest first', async (t) => {
  t.equal(scrub('token abcd-efgh and abcd', ['abcd', 'abcd-efgh']), 'token [redacted] and [redacted]');
  t.equal(scrub('nothing here', []), 'nothing here');
});
