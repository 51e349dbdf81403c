/**
 * The first run as a new operator meets it, following the README: a YAML document sent as a plain body
 * (`curl --data-binary @company.yaml`, or `curl -d` whose form type it keeps) is answered with the header
 * that makes it readable; a start that cannot bind its port is refused before the store is touched; a
 * store another user made (a first start as root) is named with its fix, never as a damaged one.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { root, runSvc, svcBin } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

const example = readFileSync(join(root, 'ops', 'company.example.yaml'), 'utf8');

t.test(
  'a YAML document sent without its Content-Type is refused with a hint naming Content-Type: application/yaml',
  async (t) => {
    const node = await startNode(t);
    const send = async (body: string, headers: Record<string, string>) => {
      const res = await fetch(`${node.url}/config?dry_run=true`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${TOKEN}`, ...headers },
        body: Buffer.from(body), // bytes: fetch adds no Content-Type of its own
      });
      return { status: res.status, body: (await res.json()) as { error: string; hint: string } };
    };
    // curl --data-binary @file.yaml and curl -d @file.yaml both say application/x-www-form-urlencoded.
    const sent: Array<Record<string, string>> = [{}, { 'content-type': 'application/x-www-form-urlencoded' }];
    for (const headers of sent) {
      const yaml = await send(example, headers);
      t.equal(yaml.status, 400);
      t.equal(yaml.body.error, 'invalid_body');
      t.match(
        yaml.body.hint,
        /`Content-Type: application\/yaml`/,
        `${JSON.stringify(headers)}: the header named`,
      );
    }
    // curl -d strips a file's line breaks: what arrives is one line, no document in either language.
    const flattened = await send(example.replace(/\r?\n/g, ''), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    t.equal(flattened.status, 400);
    t.match(flattened.body.hint, /--data-binary/, 'curl -d named as what flattened the file');
    t.match(flattened.body.hint, /application\/yaml/);
    // Declared JSON with a mistake keeps the catalogue hint: its problems say where.
    const broken = await send('{"name": }', { 'content-type': 'application/json' });
    t.equal(broken.status, 400);
    t.notMatch(broken.body.hint, /application\/yaml/, 'JSON declared as JSON gets no YAML hint');
    // And the hint is right: the same body with the header is read.
    const read = await send(example, { 'content-type': 'application/yaml' });
    t.equal(read.status, 200);
    const stored = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/yaml', 'x-summary': 'first' },
      body: example,
    });
    t.equal(stored.status, 201, 'a company is active, so a patch is read');
    // PATCH takes no YAML: its hint names the conversion instead.
    const patch = await fetch(`${node.url}/config?dry_run=true`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: Buffer.from('name: Acme\n'), // bytes: fetch sends no Content-Type
    });
    t.equal(patch.status, 400);
    t.match(((await patch.json()) as { hint: string }).hint, /merge patch is JSON.*svc config patch/);
  },
);

t.test(
  'a port in use is refused before the store is opened: exit 1, the fix named, no store made, nothing replayed',
  async (t) => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    t.teardown(() => holder.close());
    const port = (holder.address() as { port: number }).port;
    const dir = t.testdir({
      'config.yaml': `api: {host: 127.0.0.1, port: ${port}}\nstream: {store_dir: ./data}\n`,
    });
    const run = runSvc(['serve', '--config', join(dir, 'config.yaml')], {}, dir);
    t.equal(await run.exited, 1);
    t.match(run.stderr(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use.*set another api\\.port`));
    t.notOk(existsSync(join(dir, 'data')), 'the store directory was never made');
    t.same(
      run.lines.map((line) => line.msg).filter((msg) => !/cannot listen/.test(msg)),
      [],
      'no line of a node that started: only the refusal',
    );
  },
);

t.test('an api.host that names no address is refused naming api.host and the fix', async (t) => {
  const dir = t.testdir({
    'config.yaml': 'api: {host: no-such-host.invalid, port: 18080}\nstream: {store_dir: ./data}\n',
  });
  const run = runSvc(['serve', '--config', join(dir, 'config.yaml')], {}, dir);
  t.equal(await run.exited, 1);
  t.match(
    run.stderr(),
    /api\.host no-such-host\.invalid names no address .*set api\.host to an address of this machine, 127\.0\.0\.1 or 0\.0\.0\.0/,
  );
  t.notOk(existsSync(join(dir, 'data')), 'the store directory was never made');
});

/**
 * `svc serve` as a user who may not write what another made: as root, the child runs as nobody (root writes
 * anything); otherwise the file modes alone refuse it.
 */
async function serveAsAnotherUser(dir: string): Promise<{ code: number | null; err: string }> {
  const asRoot = process.getuid?.() === 0;
  const child = spawn(process.execPath, [svcBin, 'serve', '--config', join(dir, 'config.yaml')], {
    cwd: dir,
    env: { PATH: process.env['PATH'] },
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, err };
}

t.test(
  'a store whose files this user may not write is refused naming the file, its owner and the fix, never as damaged',
  async (t) => {
    const dir = t.testdir({
      'config.yaml': 'api: {port: 0}\nstream: {store_dir: ./data}\n',
      data: { 'bus.sqlite': '' },
    });
    // The directory is anyone's (a lock can be made), the store file is not: a volume a root start left.
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'data'), 0o777);
    chmodSync(join(dir, 'data', 'bus.sqlite'), 0o444);
    chmodSync(join(dir, 'config.yaml'), 0o644);
    const run = await serveAsAnotherUser(dir);
    t.equal(run.code, 1);
    t.match(run.err, /cannot write the store file \S*data\/bus\.sqlite \(EACCES\)/, 'the file named');
    t.match(run.err, /chown -R/, 'the fix named');
    t.notMatch(run.err, /move it aside|restore it from a backup|disk I\/O/, 'not said to be damaged');
  },
);

t.test(
  'a lock a stopped process left where this user may not remove it is refused naming stream.store_dir and the fix',
  async (t) => {
    const dir = t.testdir({
      'config.yaml': 'api: {port: 0}\nstream: {store_dir: ./data}\n',
      data: { 'bus.sqlite': '' },
    });
    // A pid no process holds: the lock is stale, and would be taken over where the directory allows it.
    writeFileSync(join(dir, 'data', 'bus.lock'), '2147483646');
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'data'), 0o555);
    chmodSync(join(dir, 'config.yaml'), 0o644);
    const run = await serveAsAnotherUser(dir);
    chmodSync(join(dir, 'data'), 0o755); // so the fixture can be removed by a user who is not root
    t.equal(run.code, 1);
    t.match(run.err, /bus\.lock.*EACCES.*make the directory writable by the user the node runs as/);
    t.notMatch(run.err, /^svc: EACCES/m, "the project's words, not the file system's");
  },
);

t.test(
  'a Tier A reference in a form the file does not substitute ($NAME, ${NAME:-default}) names the form it takes',
  async (t) => {
    const dir = t.testdir({
      'bare.yaml': 'api: {port: $PORT}\n',
      'default.yaml': 'api: {port: "${PORT:-8080}"}\n',
    });
    const bare = runSvc(['serve', '--config', join(dir, 'bare.yaml')], { PORT: '0' }, dir);
    t.equal(await bare.exited, 1);
    t.match(
      bare.stderr(),
      /1:7  api\.port: expected a number, got a string \(`\$PORT` is not substituted: write `\$\{PORT\}`\)/,
    );
    const withDefault = runSvc(['serve', '--config', join(dir, 'default.yaml')], { PORT: '0' }, dir);
    t.equal(await withDefault.exited, 1);
    t.match(
      withDefault.stderr(),
      /api\.port: expected a number, got a string \(only `\$\{NAME\}` is substituted: no default, no other shell form\)/,
    );
  },
);
