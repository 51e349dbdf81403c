/**
 * What a client command can tell wrong by a value's shape alone (an instant, a text grammar, a length, an
 * empty value the node would read as absent, a stray argument) is a usage error before any request: exit 2,
 * one line naming the flag and what it takes, in the route's words. Each value refused so that the node
 * would see is one the node refuses too (asked directly: 400), and the edge of each grammar the CLI lets
 * through is one the node takes, so the CLI refuses nothing the node would accept.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { main } from '../../scripts/svc.js';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

function capture() {
  let text = '';
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

async function svc(args: string[]) {
  const out = capture();
  const err = capture();
  const code = await main(args, { SVC_TOKEN: TOKEN }, out, err);
  return { code, out: out.text(), err: err.text() };
}

interface Case {
  readonly args: readonly string[];
  /** What the one line says: the flag, then what it takes. */
  readonly says: RegExp;
  /** The same value sent to the node directly, when it would have reached it. */
  readonly node?: { readonly method: string; readonly path: string; readonly body?: unknown };
}

const long = 'a'.repeat(601);
const cases: readonly Case[] = [
  {
    args: ['events', 'list', '--before-time', 'yesterday', '--before-id', 'x'],
    says: /--before-time must be an RFC 3339 timestamp/,
    node: { method: 'GET', path: '/events?before_time=yesterday&before_id=x' },
  },
  {
    args: ['events', 'list', '--before-time', '2026-01-01T00:00:00Z', '--before-id', ''],
    says: /--before-id must be an event id/,
  },
  { args: ['events', 'list', '--seat', ''], says: /--seat must be a seat handle \(got ""\)/ },
  { args: ['events', 'list', 'ava'], says: /unexpected arguments: ava/ },
  { args: ['events', 'tail', 'ava'], says: /unexpected arguments: ava/ },
  {
    args: ['secrets', 'put', 'FOO', '-', '--source', 'BAD'],
    says: /--source must be lower-case letters, digits, \. _ : - \(at most 64\), starting with a letter/,
    node: { method: 'PUT', path: '/secrets/FOO?source=BAD', body: 'value' },
  },
  { args: ['secrets', 'put', 'FOO', '-', '--source', ''], says: /--source must be lower-case letters/ },
  { args: ['secrets', 'rekey', '--key-id', ''], says: /--key-id must be a key id/ },
  {
    args: ['work', 'create', '--project', 'X', '--title', 'T'],
    says: /--project must be a project key/,
    node: { method: 'POST', path: '/work', body: { project: 'X', title: 'T' } },
  },
  {
    args: ['work', 'create', '--project', 'ENG', '--title', '  '],
    says: /--title must be one line of 1 to 300 characters once trimmed/,
    node: { method: 'POST', path: '/work', body: { project: 'ENG', title: '  ' } },
  },
  {
    args: ['work', 'create', '--project', 'ENG', '--title', 'two\tparts'],
    says: /--title must be one line of 1 to 300 characters once trimmed \(no control characters/,
    node: { method: 'POST', path: '/work', body: { project: 'ENG', title: 'two\tparts' } },
  },
  {
    args: ['work', 'create', '--project', 'ENG', '--title', 't'.repeat(301)],
    says: /--title must be one line of 1 to 300 characters once trimmed .*\(got 301 characters\)/,
    node: { method: 'POST', path: '/work', body: { project: 'ENG', title: 't'.repeat(301) } },
  },
  {
    args: ['pages', 'create', '--container', 'ENG', '--title', 'p'.repeat(256)],
    says: /--title must be one line of 1 to 255 characters once trimmed .*\(got 256 characters\)/,
    node: { method: 'POST', path: '/pages', body: { container: 'ENG', title: 'p'.repeat(256), body: '' } },
  },
  {
    args: ['work', 'create', '--project', 'ENG', '--title', 'T', '--assignee', 'Ada Lovelace'],
    says: /--assignee must be a seat handle/,
    node: {
      method: 'POST',
      path: '/work',
      body: { project: 'ENG', title: 'T', assignees: ['ada lovelace'] },
    },
  },
  {
    args: ['work', 'create', '--project', 'ENG', '--title', 'T', '--op-id', 'x y'],
    says: /--op-id must be 1 to 128 bytes of visible ASCII \(got "x y"\)/,
    node: { method: 'POST', path: '/work', body: { project: 'ENG', title: 'T', op_id: 'x y' } },
  },
  { args: ['work', 'move', 'ENG-1', 'done', '--op-id', ''], says: /--op-id must be 1 to 128 bytes/ },
  {
    args: ['work', 'inbox', '--handle', 'BAD HANDLE'],
    says: /--handle must be a seat handle \(\[a-z0-9\]\[a-z0-9-\]\*, at most 64 characters\)/,
    node: { method: 'GET', path: '/work/inbox?handle=BAD%20HANDLE' },
  },
  {
    args: ['pages', 'create', '--container', 'ENG', '--title', 'T', '--op-id', 'x'.repeat(129)],
    says: /--op-id must be 1 to 128 bytes of visible ASCII \(got 129 characters\)/,
    node: {
      method: 'POST',
      path: '/pages',
      body: { container: 'ENG', title: 'T', body: '', op_id: 'x'.repeat(129) },
    },
  },
  {
    args: ['agents', 'pause', 'coder', '--reason', long],
    says: /--reason must be at most 600 characters \(got 601 characters\)/,
  },
  {
    args: ['fleet', 'remove', 'bad id', '--confirm', 'bad id'],
    says: /NODE must be a node id: letters, digits, _ and - \(at most 64\)/,
    node: { method: 'POST', path: '/fleet/broker/remove/bad%20id?confirm=bad%20id' },
  },
  { args: ['fleet', 'remove', '--peer', '', '--confirm', ''], says: /--peer needs a broker server/ },
  { args: ['backup', '--dir', ''], says: /--dir needs a directory/ },
  {
    args: ['replay', '--stream', 'SVC_EVENTS', '--from-seq', '0x10'],
    says: /--from-seq must be a whole number/,
  },
  {
    args: ['replay', '--stream', 'SVC_EVENTS', '--since', '1'],
    says: /--since must be an RFC 3339 timestamp/,
  },
];

t.test(
  'a value wrong by its shape is refused in one line naming the flag, and nothing is sent',
  async (t) => {
    const asked: string[] = [];
    const stub = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    stub.listen(0, '127.0.0.1');
    await once(stub, 'listening');
    t.teardown(() => stub.close());
    const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    for (const c of cases) {
      const command = c.args[0]!;
      // replay opens a store, not a node: it takes no --url.
      const run = await svc(command === 'replay' ? [...c.args] : [...c.args, '--url', url]);
      const name = c.args.join(' ').slice(0, 100);
      t.equal(run.code, 2, name);
      t.match(run.err, c.says, name);
      const lines = run.err.split('\n');
      t.same(
        lines.slice(1),
        [`Run 'svc ${command} --help' for usage.`, ''],
        `${name}: one line, then the help`,
      );
      t.notMatch(run.err, /\n\s+at /, `${name}: no stack trace`);
    }
    t.same(asked, [], 'no request reached the node');
  },
);

t.test('a fleet verb or target wrong on its face is said before the node address is read', async (t) => {
  const missing = ['--config', '/nonexistent/svc.yaml'];
  const verb = await svc(['fleet', 'launch', ...missing]);
  t.equal(verb.code, 2);
  t.match(verb.err, /unknown fleet verb: launch/);
  const status = await svc(['fleet', 'status', 'extra', ...missing]);
  t.equal(status.code, 2);
  t.match(status.err, /unexpected argument: extra/);
  const confirm = await svc(['fleet', 'remove', 'node-1', '--confirm', 'node-2', ...missing]);
  t.equal(confirm.code, 2);
  t.match(confirm.err, /--confirm node-2 does not repeat the id node-1/);
});

t.test(
  'the node refuses what the CLI refuses, and takes the edge of each grammar the CLI lets by',
  async (t) => {
    const key = randomBytes(32).toString('base64');
    const keyring = `secrets: {active_key_id: k1, keys: [{id: k1, material: "${key}"}]}`;
    const node = await startNode(t, `${nativeBackends}\n${keyring}`);
    await applyNativeWork(t, [node.url], nativeWorkCompany(), 'shape flags');
    const auth = { authorization: `Bearer ${TOKEN}` };

    for (const c of cases) {
      if (c.node === undefined) continue;
      const { method, path, body } = c.node;
      const answer = await fetch(`${node.url}${path}`, {
        method,
        headers: {
          ...auth,
          'content-type': typeof body === 'string' ? 'application/octet-stream' : 'application/json',
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      t.equal(answer.status, 400, `${method} ${path}: ${await answer.text()}`);
    }

    const dir = mkdtempSync(join(tmpdir(), 'svc-shape-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const value = join(dir, 'value');
    writeFileSync(value, 'v');
    const url = ['--url', node.url];
    const edges = [
      ['events', 'list', '--before-time', '2026-01-01T00:00:00.123456789+02:00', '--before-id', 'x'],
      ['secrets', 'put', 'EDGE', value, '--source', `z${'.9_:-'.repeat(12)}abc`],
      [
        'work',
        'create',
        '--project',
        'eng',
        '--title',
        ' T ',
        '--assignee',
        'Ada',
        '--op-id',
        '~'.repeat(128),
      ],
      ['work', 'inbox', '--handle', 'ADA'],
      ['pages', 'create', '--container', 'ENG', '--title', 'T', '--op-id', '!'.repeat(128)],
      ['work', 'create', '--project', 'ENG', '--title', ` ${'t'.repeat(300)} `],
      ['pages', 'create', '--container', 'ENG', '--title', 'p'.repeat(255)],
    ];
    for (const args of edges) {
      const run = await svc([...args, ...url]);
      t.equal(run.code, 0, `${args.slice(0, 2).join(' ')}: ${run.err}`);
    }
    // A node id in the grammar reaches the node, which answers for its own state.
    const fleet = await svc(['fleet', 'remove', 'node_9-x', '--confirm', 'node_9-x', ...url]);
    t.equal(fleet.code, 1, 'a node id in the grammar is asked about');
    t.match(fleet.err, /404 not_found/);
  },
);
