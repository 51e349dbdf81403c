/**
 * An operator token's id is recorded where svc records its own actors (a secret's `updated_by`, a log line's
 * `operator`, an event's `actor`) with no kind beside it, so an id svc already records for itself is refused
 * when the Tier A file is loaded: `anonymous` (every caller with the guard off), this node's own id, and the
 * names svc's own writers and reads run as.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runSvc, type SvcChild } from '../harness/child.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-reserved-ids-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const token = (i: number): string => `reserved-id-test-token-${i}-0123456789`;
const configFile = (name: string, ids: readonly string[], extra = ''): string => {
  const file = join(dir, name);
  const tokens = ids.map((id, i) => `{id: ${id}, token: ${token(i)}}`).join(', ');
  writeFileSync(file, `api: {port: 0, auth: {tokens: [${tokens}]}}\n${extra}`);
  return file;
};

/** Exits with `code`; a node that serves anyway is stopped at once rather than left running. */
async function refused(t: Test, run: SvcChild): Promise<string> {
  const served = run
    .waitForLog((line) => line.msg === 'node serving')
    .then(
      () => (run.kill(), true),
      () => false,
    );
  t.equal(await run.exited, 1, 'exits as other bootstrap errors do');
  t.notOk(await served, 'never serves');
  return run.stderr();
}

t.test('a token id svc records as its own actor is refused at start, naming the entry and why', async (t) => {
  const file = configFile(
    'reserved.yaml',
    ['ops', 'anonymous', 'hq-1', 'codehost-a-app', 'scatter', 'system', 'scheduler'],
    'node: {id: hq-1}\n',
  );
  const err = await refused(t, runSvc(['serve', '--config', file]));
  t.notMatch(err, /tokens\[0\]\.id/, 'an ordinary id beside them is not named');
  t.match(err, /api\.auth\.tokens\[1\]\.id: anonymous is reserved: .*api\.auth\.disabled/);
  t.match(err, /api\.auth\.tokens\[2\]\.id: hq-1 is this node's id \(node\.id\)/);
  t.match(err, /api\.auth\.tokens\[3\]\.id: codehost-a-app is reserved: /);
  t.match(err, /api\.auth\.tokens\[4\]\.id: scatter is reserved: /);
  t.match(err, /api\.auth\.tokens\[5\]\.id: system is reserved: /);
  t.match(err, /api\.auth\.tokens\[6\]\.id: scheduler is reserved: /);
  t.notMatch(err, /reserved-id-test-token/, 'no token value is shown');
});

t.test(
  'the node id a token may not take is the one the node runs as, from the file or SVC_NODE_ID',
  async (t) => {
    const fallback = await refused(t, runSvc(['serve', '--config', configFile('default.yaml', ['node-0'])]));
    t.match(fallback, /api\.auth\.tokens\[0\]\.id: node-0 is this node's id \(node\.id unset: the default\)/);
    const fromEnv = await refused(
      t,
      runSvc(['serve', '--config', configFile('env.yaml', ['edge-7'])], { SVC_NODE_ID: 'edge-7' }),
    );
    t.match(fromEnv, /api\.auth\.tokens\[0\]\.id: edge-7 is this node's id \(from SVC_NODE_ID\)/);
  },
);

t.test('an ordinary id still serves', async (t) => {
  const run = runSvc(['serve', '--config', configFile('ordinary.yaml', ['ops'], 'node: {id: hq-1}\n')]);
  t.teardown(() => run.kill());
  await run.waitForLog((line) => line.msg === 'node serving');
  t.pass('serving');
  run.kill();
  await run.exited;
});
