import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { freePort, root, runSvc, type SvcChild } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { duplicateKeys } from './fixtures/duplicate-keys.js';

async function configFile(t: Test, extra: string, api?: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-logs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.yaml');
  const listen = api ?? `{host: 127.0.0.1, port: ${await freePort()}}`;
  writeFileSync(file, `api: ${listen}\nstream: {store_dir: ${join(dir, 'data')}}\n${extra}\n`);
  return file;
}

/** Resolves once stdout holds `text` (read as it arrives, whatever its format). */
function stdoutShows(run: SvcChild, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!run.stdout().includes(text)) return;
      run.child.stdout?.off('data', later);
      resolve();
    };
    // The harness reads the same 'data' events: look once it has appended this chunk.
    const later = (): void => {
      setImmediate(check);
    };
    run.child.stdout?.on('data', later);
    run.child.once('exit', () =>
      reject(new Error(`exited before printing ${text}:\n${run.stdout()}${run.stderr()}`)),
    );
    check();
  });
}

t.test(
  'no record of a serving node repeats a key: boot, an applied company with a tool server, a drain',
  async (t) => {
    const node = await startNode(t, 'debug: true');
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/yaml',
        'x-summary': 'example',
      },
      body: readFileSync(join(root, 'ops', 'company.example.yaml'), 'utf8'),
    });
    t.equal(put.status, 201);
    const applied = await node.run.waitForLog((l) => l.msg === 'config applied');
    const subsystems = applied['subsystems'] as string[];
    t.ok(Array.isArray(subsystems) && subsystems.includes('tool_servers'));
    t.equal(new Set(subsystems).size, subsystems.length, 'each subsystem named once');
    t.notMatch(node.run.stdout(), /restart_required/, 'no apply step reads as a restart');
    for (const path of ['/agents', '/events', '/org', '/schedules'])
      await (await fetch(`${node.url}${path}`)).text();
    node.run.kill('SIGTERM');
    t.equal(await node.run.exited, 0);

    const lines = node.run.stdout().trim().split('\n');
    t.ok(lines.length > 20, `${lines.length} records read`);
    const repeated = lines
      .map((line) => [line, duplicateKeys(line)] as const)
      .filter(([, keys]) => keys.length > 0);
    t.same(repeated, [], 'every record names each key once');
    t.ok(
      node.run.lines.some(
        (l) => typeof l['component'] === 'string' && l['component'].startsWith('projection.'),
      ),
      'records of a child that re-binds component were among them',
    );
    t.ok(
      lines.every((line) => line.startsWith('{')),
      'a child process (not a terminal) logs JSON',
    );
  },
);

t.test('SVC_LOG_FORMAT=pretty prints readable lines with ISO times', async (t) => {
  const file = await configFile(t, '');
  const run = runSvc(['serve', '--config', file], { SVC_LOG_FORMAT: 'pretty' });
  t.teardown(() => run.kill('SIGKILL'));
  await stdoutShows(run, 'node serving');
  run.kill('SIGTERM');
  t.equal(await run.exited, 0);
  t.match(run.stdout(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO  node serving {2}api_port=\d+/m);
  t.equal(run.lines.length, 0, 'no JSON record');
});

t.test('SVC_LOG_LEVEL overrides Tier A debug', async (t) => {
  const port = await freePort();
  const file = await configFile(t, 'debug: true', `{host: 127.0.0.1, port: ${port}, auth: {disabled: true}}`);
  const run = runSvc(['serve', '--config', file], { SVC_LOG_LEVEL: 'warn' });
  t.teardown(() => run.kill('SIGKILL'));
  await run.waitForLog((l) => l['event'] === 'auth_disabled');
  run.kill('SIGTERM');
  t.equal(await run.exited, 0);
  t.ok(run.lines.length > 0);
  t.same(
    run.lines.filter((l) => l.level < 40).map((l) => l.msg),
    [],
    'nothing below warn is written',
  );
});

t.test(
  'a bad SVC_LOG_LEVEL or SVC_LOG_FORMAT stops the start with exit 1, naming the variable',
  async (t) => {
    const file = await configFile(t, '');
    const level = runSvc(['serve', '--config', file], { SVC_LOG_LEVEL: 'loud' });
    t.equal(await level.exited, 1);
    t.match(level.stderr(), /SVC_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent/);
    const format = runSvc(['serve', '--config', file], { SVC_LOG_FORMAT: 'xml' });
    t.equal(await format.exited, 1);
    t.match(format.stderr(), /SVC_LOG_FORMAT must be json or pretty/);
  },
);
