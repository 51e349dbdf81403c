/**
 * `svc serve --company FILE` (the README's `npm start`): a first start activates the file; a restart, or a
 * node that finds a company already active, leaves the active revision alone; a wrong path stops at once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { freePort, root, runSvc } from '../harness/child.js';

const TOKEN = 'seed-test-token-0123456789';
const example = join(root, 'ops', 'company.example.yaml');

async function setUp(t: Test): Promise<{ configFile: string; url: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-seed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      `stream: {store_dir: ${join(dir, 'data')}}`,
    ].join('\n'),
  );
  return { configFile, url: `http://127.0.0.1:${port}`, dir };
}

const revisions = async (url: string): Promise<Array<Record<string, unknown>>> => {
  const res = await fetch(`${url}/config/revisions`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return ((await res.json()) as { revisions: Array<Record<string, unknown>> }).revisions;
};

t.test(
  'a first start activates the --company file; a restart leaves the active revision alone',
  async (t) => {
    const { configFile, url, dir } = await setUp(t);
    const first = runSvc(['serve', '--config', configFile, '--company', example], { SVC_TOKEN: TOKEN });
    t.teardown(() => first.kill('SIGKILL'));
    const seeded = await first.waitForLog((line) => line.msg === 'company activated from the --company file');
    await first.waitForLog((line) => line.msg === 'config applied');
    const health = (await (await fetch(`${url}/health`)).json()) as Record<string, unknown>;
    t.match(health, { configured: true, applied_epoch: 1 });
    const [revision] = await revisions(url);
    t.match(revision, {
      revision_id: seeded['revision_id'],
      source: 'cli',
      created_by: 'node-0',
      created_by_kind: 'node',
      is_active: true,
    });
    first.kill('SIGTERM');
    t.equal(await first.exited, 0);

    // The operator edits the company; a restart with the same --company must not undo it.
    const edited = join(dir, 'edited.yaml');
    writeFileSync(edited, 'name: Edited Co\n');
    const again = runSvc(['serve', '--config', configFile, '--company', edited], { SVC_TOKEN: TOKEN });
    t.teardown(() => again.kill('SIGKILL'));
    await again.waitForLog(
      (line) => line.msg === 'a company is already active; the --company file is not applied',
    );
    const after = await revisions(url);
    t.equal(after.length, 1, 'nothing new is stored');
    t.equal(after[0]?.['revision_id'], seeded['revision_id']);
  },
);

t.test(
  'an invalid --company file is refused with its problems and the node serves unconfigured',
  async (t) => {
    const { configFile, url, dir } = await setUp(t);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'name: Acme\nroles:\n  - name: Ada\n    kind: robot\n');
    const run = runSvc(['serve', '--config', configFile, '--company', bad], { SVC_TOKEN: TOKEN });
    t.teardown(() => run.kill('SIGKILL'));
    const refused = await run.waitForLog(
      (line) => line.msg === 'the --company file was refused; the node serves unconfigured',
    );
    t.match(refused, { error: 'validation_error', problems: [{ path: 'roles[0].kind' }] });
    t.match(await (await fetch(`${url}/health`)).json(), { configured: false });
  },
);

t.test('a --company file that is the Tier A file is refused with the hint that says so', async (t) => {
  const { configFile, url } = await setUp(t);
  // The start file given twice, as --config and as --company: its unknown fields alone do not say why.
  const run = runSvc(['serve', '--config', configFile, '--company', configFile], { SVC_TOKEN: TOKEN });
  t.teardown(() => run.kill('SIGKILL'));
  const refused = await run.waitForLog(
    (line) => line.msg === 'the --company file was refused; the node serves unconfigured',
  );
  t.match(refused, { error: 'validation_error', hint: /looks like the Tier A file/ });
  t.match(await (await fetch(`${url}/health`)).json(), { configured: false });
});

t.test('a --company path that cannot be read stops before the node starts', async (t) => {
  const { configFile } = await setUp(t);
  const run = runSvc(['serve', '--config', configFile, '--company', '/nonexistent/company.yaml'], {
    SVC_TOKEN: TOKEN,
  });
  t.equal(await run.exited, 1);
  t.match(run.stderr(), /--company \/nonexistent\/company\.yaml: cannot read it \(ENOENT\)/);
});

t.test('a --company file that is no readable document stops before the node starts', async (t) => {
  const { configFile } = await setUp(t);
  const broken = join(dirname(configFile), 'broken.yaml');
  writeFileSync(broken, 'name: Acme\nroles: [unclosed\n');
  const run = runSvc(['serve', '--config', configFile, '--company', broken], { SVC_TOKEN: TOKEN });
  t.equal(await run.exited, 1);
  t.match(run.stderr(), /--company .*broken\.yaml: not a readable document:\n {2}\d+/);
});

t.test(
  'a first start logs the warnings of the --company file by path and code, never their values',
  async (t) => {
    const { configFile, dir } = await setUp(t);
    const company = join(dir, 'warned.yaml');
    // A lead naming no seat (dangling, a name as written) and a reference the node cannot resolve.
    writeFileSync(
      company,
      [
        'name: Acme',
        'units:',
        '  - name: Ops',
        '    type: team',
        '    lead: nobody-secret-name',
        'mission: "${SEED_TEST_UNSET_KEY}"',
      ].join('\n'),
    );
    const run = runSvc(['serve', '--config', configFile, '--company', company], { SVC_TOKEN: TOKEN });
    t.teardown(() => run.kill('SIGKILL'));
    const seeded = await run.waitForLog((line) => line.msg === 'company activated from the --company file');
    const warnings = seeded['warnings'] as Array<Record<string, unknown>>;
    t.ok(Array.isArray(warnings) && warnings.length > 0, 'the warnings are listed');
    t.equal(seeded['warning_count'], warnings.length);
    t.ok(
      warnings.some(
        (w) => w['path'] === 'units[0].lead' && w['kind'] === 'dangling_reference' && w['line'] === 5,
      ),
      'each by its path, code and line',
    );
    for (const warning of warnings)
      t.same(Object.keys(warning).sort(), ['kind', 'line', 'path'].filter((k) => k in warning).sort());
    t.notMatch(JSON.stringify(seeded), /nobody-secret-name|SEED_TEST_UNSET_KEY/, 'no value named');
  },
);
