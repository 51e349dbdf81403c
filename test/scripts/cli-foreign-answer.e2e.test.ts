/**
 * A 2xx answer that is not the node's (a proxy's sign-in page, a body cut short, JSON of another shape) is
 * one line on stderr naming what to check, exit 1, for every client command: never a JavaScript error's
 * text (`page.body.rows is not iterable`, `Unexpected token '<'`), never `{}` with exit 0.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runSvc } from '../harness/child.js';

t.setTimeout(300_000);

type Mode = 'html' | 'cut' | 'shape';

/** A real listener answering every request 200 with what `mode` names. */
async function listener(t: Test, mode: Mode): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (mode === 'html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in</html>');
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(mode === 'cut' ? '{"rows":[' : '{"x":1}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function svc(args: string[], url: string) {
  const run = runSvc([...args, '--url', url], { SVC_TOKEN: 'a-token' });
  const code = await run.exited;
  return { code, out: run.stdout(), err: run.stderr() };
}

const uuid = '0f0e0d0c-0b0a-4908-8706-050403020100';
const jsError = /TypeError|is not iterable|Unexpected token|Unexpected end|undefined|\n\s+at /;

t.test('a 2xx answer that is not JSON: each client command says to check the address, exit 1', async (t) => {
  const file = join(t.testdir({ 'company.yaml': 'name: Acme\n' }), 'company.yaml');
  const commands = [
    ['config', 'get'],
    ['config', 'revisions'],
    ['config', 'put', file, '--summary', 's'],
    ['config', 'diff', 'abcd'],
    ['config', 'diff', uuid],
    ['config', 'diff', uuid, '--format', 'yaml'],
    ['secrets', 'list'],
    ['secrets', 'rm', 'X'],
    ['events', 'list'],
    ['events', 'get', 'x'],
    ['events', 'trace', 'x'],
    ['work', 'list'],
    ['pages', 'list'],
    ['fleet', 'status'],
    ['fleet', 'status', '--json'],
    ['fleet', 'remove', 'n1', '--confirm', 'n1'],
    ['agents'],
    ['agents', 'pause', 'x'],
    ['backup', 'list'],
    ['backup', '--dir', join(file, '..', 'backup')],
  ];
  for (const mode of ['html', 'cut'] as const) {
    const url = await listener(t, mode);
    const runs = await Promise.all(commands.map((args) => svc(args, url)));
    runs.forEach((run, i) => {
      const said = `${mode}: svc ${commands[i]!.join(' ')}: ${run.err}`;
      t.equal(run.code, 1, said);
      t.equal(run.out, '', `${said}: nothing on stdout`);
      t.match(
        run.err,
        /^svc [a-z]+: HTTP 200 answer is not JSON, so not the node's own answer: check that --url \/ \$SVC_URL is the node's api\.host:api\.port, or the proxy in front of it/,
        said,
      );
      t.equal(run.err.trimEnd().split('\n').length, 1, `${said}: one line`);
      t.notMatch(run.err, jsError, said);
    });
  }
});

t.test('JSON of another shape: a command that reads it names the missing field, exit 1', async (t) => {
  const url = await listener(t, 'shape');
  const commands = [
    ['config', 'diff', 'abcd'],
    ['config', 'diff', uuid],
    ['events', 'list'],
    ['events', 'trace', 'x'],
    ['fleet', 'status'],
    ['agents'],
  ];
  const runs = await Promise.all(commands.map((args) => svc(args, url)));
  runs.forEach((run, i) => {
    const said = `svc ${commands[i]!.join(' ')}: ${run.err}`;
    t.equal(run.code, 1, said);
    t.match(run.err, /^svc [a-z]+: the node's answer is not .+ \(.*expected .+\)/, said);
    t.equal(run.err.trimEnd().split('\n').length, 1, `${said}: one line`);
    t.notMatch(run.err, jsError, said);
  });
});
