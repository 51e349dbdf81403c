import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { keyringYaml } from '../http/fixtures/secrets-node.js';
import { runSvc, svcBin } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

/** Runs `svc ...` with `stdin` piped in; resolves with the exit code and raw stdout bytes. */
async function svc(args: string[], opts: { stdin?: Buffer; env?: Record<string, string> } = {}) {
  const child = spawn(process.execPath, [svcBin, ...args], {
    env: { PATH: process.env['PATH'], ...(opts.env ?? { SVC_TOKEN: TOKEN }) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => err.push(c));
  child.stdin.end(opts.stdin ?? Buffer.alloc(0));
  const [code] = (await once(child, 'exit')) as [number | null];
  return {
    code,
    out: Buffer.concat(out),
    text: Buffer.concat(out).toString(),
    err: Buffer.concat(err).toString(),
  };
}

t.test('svc keygen prints a fresh base64 32-byte key each time', async (t) => {
  const a = runSvc(['keygen']);
  const b = runSvc(['keygen']);
  t.equal(await a.exited, 0);
  t.equal(await b.exited, 0);
  const keys = [a.stdout().trim(), b.stdout().trim()];
  for (const key of keys) t.equal(Buffer.from(key, 'base64').length, 32);
  t.not(keys[0], keys[1]);
  const bad = runSvc(['keygen', 'extra']);
  t.equal(await bad.exited, 2);
});

t.test(
  'svc secrets puts from a file and from stdin, lists, reveals exact bytes, removes and rekeys',
  async (t) => {
    const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
    const url = ['--url', node.url];
    const file = join(node.dir, 'value.txt');
    writeFileSync(file, 'from-a-file\n');
    t.equal((await svc(['secrets', 'put', 'FILE_VALUE', file, ...url])).code, 0);
    const bytes = Buffer.from([0, 1, 2, 0xff, 0x0a]);
    const piped = await svc(['secrets', 'put', 'PIPED_VALUE', ...url, '--source', 'setup'], { stdin: bytes });
    t.equal(piped.code, 0, piped.err);
    t.match(JSON.parse(piped.text), { name: 'PIPED_VALUE', source: 'setup', updated_by: 'ops' });
    const list = await svc(['secrets', 'list', ...url]);
    t.match(JSON.parse(list.text), {
      secrets: [{ name: 'FILE_VALUE', source: 'cli' }, { name: 'PIPED_VALUE' }],
    });
    t.notMatch(list.text, /from-a-file/);
    t.same((await svc(['secrets', 'reveal', 'PIPED_VALUE', ...url])).out, bytes);
    t.equal(
      (await svc(['secrets', 'reveal', 'FILE_VALUE', ...url])).text,
      'from-a-file\n',
      'the newline was kept',
    );
    t.same(JSON.parse((await svc(['secrets', 'rekey', ...url])).text), {
      key_id: 'k1',
      moved: [],
      unreadable: [],
    });
    const refused = await svc(['secrets', 'rekey', '--key-id', 'k0', ...url]);
    t.equal(refused.code, 1);
    t.match(refused.err, /409 key_not_active/);
    t.same(JSON.parse((await svc(['secrets', 'rm', 'FILE_VALUE', ...url])).text), { removed: true });
    const gone = await svc(['secrets', 'reveal', 'FILE_VALUE', ...url]);
    t.equal(gone.code, 1);
    t.match(gone.err, /404 not_found/);
  },
);

t.test('svc secrets refuses a value on the command line, a bad name, and a missing token', async (t) => {
  const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
  const url = ['--url', node.url];
  const argv = await svc(['secrets', 'put', 'ARGV_VALUE', 'the-value-itself', ...url]);
  t.equal(argv.code, 2, 'the second argument is a file to read, never the value');
  t.match(argv.err, /cannot read the FILE argument \(ENOENT\); a value is never taken from the command line/);
  t.notMatch(argv.err, 'the-value-itself', 'what may be a secret typed by mistake is not echoed');
  t.equal((await svc(['secrets', 'put', '9BAD', ...url])).code, 2);
  t.equal((await svc(['secrets', 'frobnicate', ...url])).code, 2);
  const anonymous = await svc(['secrets', 'list', ...url], { env: {} });
  t.equal(anonymous.code, 1);
  t.match(anonymous.err, /401 invalid_token/);
  t.same(JSON.parse((await svc(['secrets', 'list', ...url])).text), { secrets: [] });
});
