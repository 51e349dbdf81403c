/**
 * `svc config` against a running node: a 401 speaks of SVC_TOKEN (not HTTP headers), a patch may be written in
 * YAML, revision ids may be shortened to a unique prefix, `diff` prints changes grouped per entity (or YAML, or
 * the route's JSON), and `revert` needs no summary.
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

// Seven CLI processes (each a Node start) and a node: past the default 120 s on a loaded machine.
t.setTimeout(300_000);

async function svc(args: string[], env: Record<string, string | undefined> = { SVC_TOKEN: TOKEN }) {
  const run = runSvc(args, env);
  const code = await run.exited;
  return { code, out: run.stdout(), err: run.stderr() };
}

t.test(
  'against a node: 401 hints at SVC_TOKEN; YAML patch, short ids, per-entity diff, revert',
  async (t) => {
    const node = await startNode(t);
    const file = join(node.dir, 'company.yaml');
    writeFileSync(file, 'name: Acme\nmission: one\nroles:\n  - name: Ada\n    goal: ship\n');
    const config = (args: string[], env?: Record<string, string | undefined>) =>
      svc(['config', ...args, '--url', node.url], env);

    const anonymous = await config(['put', file, '--summary', 'first'], {});
    t.equal(anonymous.code, 1);
    t.match(anonymous.err, /set SVC_TOKEN to a token of the node's api\.auth\.tokens/);
    t.notMatch(anonymous.err, /Authorization/, 'no HTTP header talk');
    const wrong = await config(['put', file, '--summary', 'first'], { SVC_TOKEN: 'not-the-token' });
    t.match(wrong.err, /refused the token in SVC_TOKEN/);

    const first = await config(['put', file, '--summary', 'first']);
    t.equal(first.code, 0, first.err);
    const firstId = (JSON.parse(first.out) as { revision_id: string }).revision_id;
    const patch = join(node.dir, 'patch.yaml');
    writeFileSync(patch, 'mission: two\nroles:\n  - name: Ada\n    goal: ship faster\n');
    const patched = await config(['patch', patch, '--summary', 'yaml patch']);
    t.equal(patched.code, 0, patched.err);
    const secondId = (JSON.parse(patched.out) as { revision_id: string }).revision_id;
    const read = async (path: string): Promise<string> =>
      (await fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    t.match(await read('/config'), /"mission":"two"/, 'the YAML patch was applied');

    const diff = await config(['diff', secondId.slice(0, 8), '--against', firstId.slice(0, 6)]);
    t.equal(diff.code, 0, diff.err);
    t.match(diff.out, `diff ${firstId} -> ${secondId}: 2 change(s)`);
    t.match(diff.out, /\n\(company\)\n {2}~ mission: "one" -> "two"\n/);
    t.match(diff.out, /\nroles\[0\]\n {2}~ roles\[0\]\.goal: "ship" -> "ship faster"\n/);
    const yaml = await config(['diff', secondId.slice(0, 8), '--against', firstId, '--format', 'yaml']);
    t.match(yaml.out, /^from: /m);

    const revert = await config(['revert', firstId.slice(0, 8)]);
    t.equal(revert.code, 0, revert.err);
    t.match((await config(['get'])).out, /"mission":"one"/);
    const list = JSON.parse((await config(['revisions', '--limit', '1'])).out) as {
      revisions: Array<{ summary: string }>;
    };
    t.equal(list.revisions[0]?.summary, `revert to ${firstId}`, 'the summary defaults to what was done');

    // --if-match: a prefix or the quoted ETag of the active revision proceeds; a typo is refused unsent.
    const etag = (await fetch(`${node.url}/config`, { headers: { authorization: `Bearer ${TOKEN}` } })).headers.get('etag')!; // prettier-ignore
    const active = etag.replaceAll('"', '');
    const count = async (): Promise<number> =>
      (JSON.parse((await config(['revisions', '--limit', '1'])).out) as { total: number }).total;
    const before = await count();
    const byPrefix = await config(['patch', patch, '--summary', 'p', '--if-match', active.slice(0, 8)]);
    t.equal(byPrefix.code, 0, byPrefix.err);
    const fresh = await fetch(`${node.url}/config`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const byEtag = await config(['patch', patch, '--summary', 'q', '--if-match', fresh.headers.get('etag')!]);
    t.equal(byEtag.code, 0, byEtag.err);
    const typo = await config(['patch', patch, '--summary', 'r', '--if-match', 'ffff0000']);
    t.equal(typo.code, 1);
    t.match(typo.err, /no revision id starts with ffff0000/);
    t.equal(await count(), before + 2, 'the refused one stored nothing');
  },
);

t.test('a malformed revision id is a bad flag or argument (exit 2), told before any request', async (t) => {
  const file = join(t.testdir({ 'company.yaml': 'name: Acme\n' }), 'company.yaml');
  // Port 1 answers nothing: a request would end in "cannot reach", exit 1.
  const url = 'http://127.0.0.1:1';
  const put = await svc(['config', 'put', file, '--summary', 's', '--if-match', 'zz', '--url', url]);
  t.equal(put.code, 2, put.err);
  t.match(put.err, /zz is not a revision id or a prefix of one/);
  const revert = await svc(['config', 'revert', 'nope', '--url', url]);
  t.equal(revert.code, 2, revert.err);
  t.match(revert.err, /nope is not a revision id or a prefix of one/);
  t.notMatch(revert.err, /cannot reach/);
});

t.test(
  '`active` is a revision only to --against: as REVISION or --if-match it is a bad argument',
  async (t) => {
    const file = join(t.testdir({ 'company.yaml': 'name: Acme\n' }), 'company.yaml');
    // Port 1 answers nothing: a request would end in "cannot reach", exit 1. Sent, `--if-match active`
    // stored an inactive revision (no revision has that id) and `revert active` answered 404.
    const url = 'http://127.0.0.1:1';
    for (const args of [
      ['put', file, '--summary', 's', '--if-match', 'active'],
      ['patch', file, '--summary', 's', '--if-match', '"active"'],
      ['revert', 'active'],
      ['diff', 'active'],
    ]) {
      const run = await svc(['config', ...args, '--url', url]);
      t.equal(run.code, 2, `${args.join(' ')}: ${run.err}`);
      t.match(run.err, /active is not a revision id or a prefix of one/);
      t.match(run.err, /svc config revisions --limit 1/, 'says where the active id is read');
      t.notMatch(run.err, /cannot reach/);
    }
    const against = await svc(['config', 'diff', '1234abcd', '--against', 'active', '--url', url]);
    t.match(against.err, /cannot reach/, '--against active is sent');
  },
);

t.test(
  'a YAML patch that does not parse: exit 1, problems by line in the node shape, its text never quoted',
  async (t) => {
    const dir = t.testdir({
      'leak.yaml': 'providers:\n  llm:\n    openai:\n      api_key: sk-LEAKED-123: x\n',
      'cycle.yaml': 'a: &x [*x]\n',
    });
    // Port 1 answers nothing: a request would end in "cannot reach"; the refusal comes before any.
    const url = 'http://127.0.0.1:1';
    const leak = await svc(['config', 'patch', join(dir, 'leak.yaml'), '--summary', 's', '--url', url]);
    t.equal(leak.code, 1, leak.err);
    t.match(
      leak.err,
      /leak\.yaml is not a readable YAML merge patch \(nothing was sent\):\n {2}\(document\) \(line 4\): YAML: /,
    );
    t.notMatch(leak.err, /LEAKED/, 'the credential on the bad line is not echoed');
    t.notMatch(leak.err, /cannot reach|svc config --help/);
    const cycle = await svc(['config', 'patch', join(dir, 'cycle.yaml'), '--summary', 's', '--url', url]);
    t.equal(cycle.code, 1, cycle.err);
    t.match(cycle.err, /\(document\) \(line 1\): an alias refers to a node that contains it/);
  },
);

t.test(
  "a refused listing of revisions while resolving a prefix prints the node's code, detail and hint, exit 1",
  async (t) => {
    const refusal = {
      error: 'draining',
      detail: 'the node is draining and takes no new requests',
      hint: 'retry against another node of the fleet',
    };
    // A real listener answering as a draining node does (503, `{error, detail, hint}`).
    const server = createServer((req, res) => {
      req.resume();
      res
        .writeHead(503, { 'content-type': 'application/json', 'retry-after': '30' })
        .end(JSON.stringify(refusal));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const args of [
      ['diff', 'abcd'],
      ['revert', 'abcd'],
      ['diff', 'abcd1234', '--against', 'ef01'],
    ]) {
      const run = await svc(['config', ...args, '--url', url]);
      t.equal(run.code, 1, `${args.join(' ')}: ${run.err}`);
      t.equal(
        run.err,
        `svc config: listing revisions to resolve ${args[1]} was refused: 503 draining: ${refusal.detail}\nhint: ${refusal.hint}\n`,
        args.join(' '),
      );
      t.equal(run.out, '', `${args.join(' ')}: nothing on stdout`);
    }
  },
);
