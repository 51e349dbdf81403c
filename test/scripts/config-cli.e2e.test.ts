import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { root, runSvc } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

/** Runs `svc config ...` against the node and resolves with its exit code and output. */
async function config(url: string, args: string[], env: Record<string, string> = { SVC_TOKEN: TOKEN }) {
  const run = runSvc(['config', ...args, '--url', url], env);
  const code = await run.exited;
  return { code, out: run.stdout(), err: run.stderr() };
}

/** Several independent `svc config` runs at once (each is mostly a Node start); their results in order. */
const configEach = (url: string, runs: string[][]) => Promise.all(runs.map((args) => config(url, args)));

/**
 * One node for the tests that need no fresh history (each counts or names only the revisions it wrote);
 * the first test counts epochs from a fresh node and starts its own.
 */
const shared = await startNode(t);

t.test('svc config puts, gets, lists, diffs, reverts and reloads against a running node', async (t) => {
  const node = await startNode(t);
  const first = join(node.dir, 'company.yaml');
  const hook = (secret: string) => `integrations: {codehost_a: {webhook_secret: ${secret}}}`;
  writeFileSync(first, `name: Acme\nmission: one\n${hook('old-hook-secret')}\nroles:\n  - name: Ada\n`);
  const put = await config(node.url, ['put', first, '--summary', 'first company']);
  t.equal(put.code, 0, put.err);
  const firstId = (JSON.parse(put.out) as { revision_id: string; epoch: number }).revision_id;
  t.match(JSON.parse(put.out), { epoch: 1, derived: { seats: [{ handle: 'ada' }] } });

  const patch = join(node.dir, 'patch.json');
  writeFileSync(
    patch,
    '{"mission": "two", "integrations": {"codehost_a": {"webhook_secret": "new-hook-secret"}}}',
  );
  t.equal((await config(node.url, ['patch', patch, '--summary', 'mission'])).code, 0);

  // Reads only: all at once.
  const [yaml, listed, jsonDiff, textDiff] = await configEach(node.url, [
    ['get', '--format', 'yaml'],
    ['revisions', '--limit', '5'],
    ['diff', firstId, '--format', 'json'],
    ['diff', firstId],
  ]);
  t.match(yaml!.out, /mission: two/);
  const revisions = JSON.parse(listed!.out) as {
    revisions: Array<{ summary: string; source: string }>;
  };
  t.same(
    revisions.revisions.map((r) => [r.summary, r.source]),
    [
      ['mission', 'cli'],
      ['first company', 'cli'],
    ],
    'the CLI names itself: its writes are stored with source cli',
  );
  const diff = JSON.parse(jsonDiff!.out) as {
    changes: unknown[];
  };
  const marker = { encrypted: true, key_id: null };
  t.same(diff.changes, [
    { path: 'mission', kind: 'changed', from: 'two', to: 'one' },
    { path: 'integrations.codehost_a.webhook_secret', kind: 'changed', from: marker, to: marker },
  ]);
  const text = textDiff!.out;
  t.match(
    text,
    /: 2 change\(s\)\n[^]*~ integrations\.codehost_a\.webhook_secret: /,
    'a rotated secret is counted',
  );
  t.notMatch(text, /hook-secret/, 'and never shown');
  t.equal((await config(node.url, ['revert', firstId, '--summary', 'back to one'])).code, 0);
  t.match((await config(node.url, ['get'])).out, /"mission":"one"/);
  t.match(JSON.parse((await config(node.url, ['reload'])).out), { epoch: 4 });
});

t.test(
  'svc config revert and reload take --dry-run: the node checks the document and stores nothing',
  async (t) => {
    const node = shared;
    const file = join(node.dir, 'dry-run.yaml');
    writeFileSync(file, 'name: Acme\nroles:\n  - name: Ada\n');
    const put = await config(node.url, ['put', file, '--summary', 'first']);
    t.equal(put.code, 0, put.err);
    const id = (JSON.parse(put.out) as { revision_id: string }).revision_id;
    // Counted by the route the CLI's `revisions` reads (a request, not another CLI start).
    const stored = async (): Promise<number> => {
      const response = await fetch(`${node.url}/config/revisions?limit=100`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      return ((await response.json()) as { revisions: unknown[] }).revisions.length;
    };
    const before = await stored();
    const dryRuns: string[][] = [
      ['revert', id, '--dry-run'],
      ['reload', '--dry-run'],
    ];
    const answers = await configEach(node.url, dryRuns);
    for (const [i, args] of dryRuns.entries()) {
      const dry = answers[i]!;
      t.equal(dry.code, 0, dry.err);
      t.match(
        JSON.parse(dry.out),
        { valid: true, base_revision_id: id },
        `${args[0]} --dry-run answers the check`,
      );
    }
    t.equal(await stored(), before, 'no revision was stored');
  },
);

t.test(
  'svc config revert and reload send --if-match: a stale one is refused, the current one writes',
  async (t) => {
    const node = shared;
    const file = join(node.dir, 'if-match.yaml');
    const put = async (text: string, summary: string): Promise<string> => {
      writeFileSync(file, text);
      const answer = await config(node.url, ['put', file, '--summary', summary]);
      return (JSON.parse(answer.out) as { revision_id: string }).revision_id;
    };
    const first = await put('name: Acme\nroles:\n  - name: Ada\n', 'one');
    const second = await put('name: Acme\nmission: two\nroles:\n  - name: Ada\n', 'two');
    const staleRuns = [['revert', first], ['reload']];
    const refusals = await configEach(
      node.url,
      staleRuns.map((args) => [...args, '--if-match', first]),
    );
    for (const [i, args] of staleRuns.entries()) {
      const stale = refusals[i]!;
      t.equal(stale.code, 1, `${args[0]} with a stale --if-match is refused`);
      t.match(stale.err + stale.out, /revision_advanced/);
    }
    const current = await config(node.url, ['reload', '--if-match', second]);
    t.equal(current.code, 0, current.err);
    t.match(
      JSON.parse((await config(node.url, ['get'])).out),
      { mission: 'two' },
      'the stale writes changed nothing',
    );
  },
);

t.test('svc config prints refusals with their code and problems and exits 1', async (t) => {
  const node = shared;
  const bad = join(node.dir, 'bad.yaml');
  writeFileSync(bad, 'name: Acme\nroles:\n  - name: Ada\n    kind: robot\n');
  // None of them writes: all at once.
  const [validate, noSummary, noToken, unreachable] = await Promise.all([
    config(node.url, ['validate', bad]),
    config(node.url, ['put', bad]),
    config(node.url, ['get'], {}),
    config('http://127.0.0.1:1', ['get']),
  ]);
  t.equal(validate.code, 1);
  t.match(validate.err, /400 validation_error/);
  t.match(validate.err, /roles\[0\]\.kind \(line 4\)/);
  t.equal(noSummary.code, 2, 'a put without --summary is a usage error');
  t.equal(noToken.code, 1);
  t.match(noToken.err, /401 invalid_token/);
  t.equal(unreachable.code, 1);
  t.match(unreachable.err, /cannot reach http:\/\/127\.0\.0\.1:1/);
});

t.test('svc config schema prints the company document JSON Schema without a node', async (t) => {
  const run = runSvc(['config', 'schema'], {}, root);
  t.equal(await run.exited, 0);
  const schema = JSON.parse(run.stdout()) as { $schema?: string; properties?: Record<string, unknown> };
  t.ok(schema.properties && 'roles' in schema.properties && 'units' in schema.properties);
});
