/**
 * The command line as a new operator meets it: help names the environment it reads, usage errors point at
 * the command's own help, a busy port is named with its reason, and shell completion (the `svc config`
 * client's side: config-cli-usability.e2e.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { freePort } from '../harness/free-port.js';
import { TOKEN } from '../harness/serve-node.js';

async function svc(args: string[], env: Record<string, string | undefined> = { SVC_TOKEN: TOKEN }) {
  const run = runSvc(args, env);
  const code = await run.exited;
  return { code, out: run.stdout(), err: run.stderr() };
}

t.test('svc --help lists SVC_TOKEN and SVC_URL; a usage error points at the command help', async (t) => {
  const help = await svc(['--help']);
  t.equal(help.code, 0);
  t.match(help.out, /SVC_TOKEN\s+operator token/);
  t.match(help.out, /SVC_URL\s+node address/);
  t.match(help.out, /completion/);
  const usage = await svc(['config', 'diff', '--bogus']);
  t.equal(usage.code, 2);
  t.match(usage.err, /Run 'svc config --help' for usage/);
  const missing = await svc(['config', 'put']);
  t.equal(missing.code, 2);
  t.equal(missing.err, "svc config put needs FILE\nRun 'svc config --help' for usage.\n", 'svc named once');
  const unknown = await svc(['nonsense']);
  t.match(unknown.err, /Run 'svc --help' for usage/);
  const version = await svc(['--version', 'serve']);
  t.equal(version.code, 2, 'a word after --version is a usage error');
  t.equal(version.out, '', 'and prints no version');
  t.match(version.err, /--version takes no argument: serve/);
  // Help shown because a command or verb is missing is a usage error: on stderr, stdout left empty.
  for (const args of [[], ['config'], ['secrets'], ['events'], ['work'], ['pages'], ['fleet']]) {
    const bare = await svc(args);
    t.equal(bare.code, 2, `svc ${args.join(' ')}: exit 2`);
    t.equal(bare.out, '', `svc ${args.join(' ')}: nothing on stdout`);
    t.match(bare.err, /^Usage: svc/m, `svc ${args.join(' ')}: help on stderr`);
  }
});

t.test(
  'a node address that is not http(s) is a usage error (exit 2) before any request, one that answers nothing says what to check',
  async (t) => {
    for (const [url, args] of [
      ['ftp://127.0.0.1:1', ['config', 'get']],
      ['nats://127.0.0.1:1', ['config', 'get']],
      ['127.0.0.1:1', ['config', 'get']],
      ['ftp://127.0.0.1:1', ['events', 'tail']],
    ] as const) {
      const run = await svc([...args, '--url', url]);
      t.equal(run.code, 2, `${url}: a bad flag value, as a non-number --limit`);
      t.equal(
        run.err,
        `svc: --url / $SVC_URL is not an http(s) URL such as http://127.0.0.1:8080 (write a password's # ? / as %23 %3F %2F)\nRun 'svc ${args[0]} --help' for usage.\n`,
        `${url}: the project's words, not the HTTP library's`,
      );
    }
    const limit = await svc(['events', 'list', '--limit', 'x', '--url', 'http://127.0.0.1:1']);
    t.equal(limit.code, 2, 'the bad flag value it matches');
    for (const args of [
      ['config', 'get'],
      ['events', 'tail'],
    ]) {
      const run = await svc([...args, '--url', 'http://127.0.0.1:1']);
      t.equal(run.code, 1);
      t.match(
        run.err,
        new RegExp(
          `^svc ${args[0]}: cannot reach (http|ws)://127\\.0\\.0\\.1:1 \\(.*ECONNREFUSED.*\\): is the node running, and is this its api\\.host:api\\.port\\? Set --url or \\$SVC_URL to it\\n$`,
        ),
      );
    }
  },
);

t.test('a flag of another verb is refused before any request, not ignored', async (t) => {
  const cases: Array<[string[], string]> = [
    [['events', 'tail', '--limit', '3'], '--limit belongs to svc events list, not tail'],
    [
      ['config', 'get', '--summary', 's'],
      '--summary belongs to svc config put, patch, revert, reload, not get',
    ],
    [
      ['config', 'revisions', '--dry-run'],
      '--dry-run belongs to svc config put, patch, revert, reload, not revisions',
    ],
    [['work', 'show', 'ENG-1', '--status', 'done'], '--status belongs to svc work list, create, not show'],
    [['pages', 'show', 'ENG/Home', '--limit', '3'], '--limit belongs to svc pages list, search, not show'],
    [['fleet', 'status', '--force'], '--force belongs to svc fleet remove, not status'],
  ];
  for (const [args, said] of cases) {
    // Port 1 answers nothing: a request sent would end in "cannot reach", exit 1.
    const run = await svc([...args, '--url', 'http://127.0.0.1:1']);
    t.equal(run.code, 2, args.join(' '));
    t.equal(run.err, `svc: ${said}\nRun 'svc ${args[0]} --help' for usage.\n`);
  }
});

t.test("a client command names the bad api key of its --config file in the project's words", async (t) => {
  const dir = t.testdir({
    'word.yaml': 'api: {port: eighty}\n',
    'range.yaml': 'api: {port: 70000}\n',
    'host.yaml': 'api: {host: 8080}\n',
  });
  for (const [file, said] of [
    ['word.yaml', 'api.port: expected a whole number from 0 to 65535'],
    ['range.yaml', 'api.port: expected a whole number from 0 to 65535'],
    ['host.yaml', 'api.host: expected a host name or address'],
  ] as const) {
    const run = await svc(['config', 'get', '--config', join(dir, file)]);
    t.equal(run.code, 2, file);
    t.equal(
      run.err,
      `svc: the node's address cannot be read from ${join(dir, file)} (${said}): fix it, or pass --url\nRun 'svc config --help' for usage.\n`,
    );
  }
});

t.test('svc completion prints bash and zsh scripts that complete commands and verbs', async (t) => {
  const bash = await svc(['completion', 'bash']);
  t.equal(bash.code, 0);
  const completed = execFileSync(
    'bash',
    ['-c', `${bash.out}\nCOMP_WORDS=(svc config re); COMP_CWORD=2; _svc; echo "\${COMPREPLY[@]}"`],
    { encoding: 'utf8' },
  );
  t.same(completed.trim().split(' ').sort(), ['reload', 'revert', 'revisions']);
  const local = execFileSync(
    'bash',
    ['-c', `${bash.out}\nCOMP_WORDS=(svc projections --); COMP_CWORD=2; _svc; echo "\${COMPREPLY[@]}"`],
    { encoding: 'utf8' },
  );
  t.same(local.trim().split(' ').sort(), ['--config', '--help'], 'a local command offers no --url');
  const zsh = await svc(['completion', 'zsh']);
  t.equal(zsh.code, 0);
  t.match(zsh.out, /^#compdef svc/);
  t.match(zsh.out, /config\) compadd -- get put patch/);
  t.equal((await svc(['completion', 'fish'])).code, 2);
});

t.test('a busy port is named, with why, and the node exits 1', async (t) => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => holder.close());
  const port = (holder.address() as { port: number }).port;
  const dir = t.testdir({
    'config.yaml': `providers: {queue: {type: memory}}\napi: {host: 127.0.0.1, port: ${port}}\nstream: {store_dir: ./data}\n`,
  });
  const run = await svc(['serve', '--config', join(dir, 'config.yaml')], {});
  t.equal(run.code, 1);
  t.match(
    run.err,
    new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} on 127\\.0\\.0\\.1 is in use`),
  );
});

t.test('a busy public port is named by its own key, api.public.port', async (t) => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => holder.close());
  const port = (holder.address() as { port: number }).port;
  const dir = t.testdir({
    'config.yaml': `api: {host: 127.0.0.1, port: ${await freePort()}, public: {port: ${port}}}\n`,
  });
  const run = await svc(['serve', '--config', join(dir, 'config.yaml')], {});
  t.equal(run.code, 1);
  t.match(
    run.err,
    new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: .*in use.*set another api\\.public\\.port`),
  );
});

t.test('a store directory that cannot be made is refused naming stream.store_dir and the fix', async (t) => {
  const dir = t.testdir({
    occupied: 'a file, not a directory\n',
    'config.yaml': 'api: {port: 0}\nstream: {store_dir: ./occupied/data}\n',
    'file.yaml': 'api: {port: 0}\nstream: {store_dir: ./occupied}\n',
  });
  for (const file of ['config.yaml', 'file.yaml']) {
    const run = runSvc(['serve', '--config', join(dir, file)], {}, dir);
    t.equal(await run.exited, 1, `${file}: exit 1`);
    t.match(
      run.stderr(),
      /cannot create the store directory \S*occupied\S*.*a file stands where a directory is needed; set stream\.store_dir to a directory/,
    );
    t.notMatch(run.stderr(), /\n\s+at /, 'no stack trace');
  }
});

t.test(
  "a Tier A value of the wrong shape is refused in the project's words, with file, line and key",
  async (t) => {
    const dir = t.testdir({
      'config.yaml': 'api:\n  port: "eighty"\nnode:\n  roles: [web]\n  seat_lease_seconds: 1\n',
    });
    const run = runSvc(['serve', '--config', join(dir, 'config.yaml')], {}, dir);
    t.equal(await run.exited, 1);
    t.equal(
      run.stderr(),
      [
        `svc: configuration ${join(dir, 'config.yaml')} refused:`,
        '  2:3  api.port: expected a number, got a string',
        '  4:11  node.roles[0]: expected one of ingress, data, seats',
        '  5:3  node.seat_lease_seconds: must be at least 3',
        '',
      ].join('\n'),
      'no zod wording (Invalid input, Too small)',
    );
  },
);

t.test(
  'a Tier A value from an unset ${VAR} names the variable, and a set one never shows its value',
  async (t) => {
    const dir = t.testdir({
      'config.yaml': 'api:\n  port: ${SVC_TEST_PORT}\nstream:\n  store_dir: ${SVC_TEST_DATA}\n',
    });
    const unset = runSvc(['serve', '--config', join(dir, 'config.yaml')], {}, dir);
    t.equal(await unset.exited, 1);
    t.match(
      unset.stderr(),
      /2:3 {2}api\.port: expected a number, got a string \(from \$\{SVC_TEST_PORT\}, unset or empty\)/,
    );
    t.match(
      unset.stderr(),
      /4:3 {2}stream\.store_dir: must not be empty \(from \$\{SVC_TEST_DATA\}, unset or empty\)/,
    );
    const wrong = runSvc(
      ['serve', '--config', join(dir, 'config.yaml')],
      { SVC_TEST_PORT: 'port-secretish', SVC_TEST_DATA: dir },
      dir,
    );
    t.equal(await wrong.exited, 1);
    t.match(wrong.stderr(), /api\.port: expected a number, got a string \(from \$\{SVC_TEST_PORT\}\)\n/);
    t.notMatch(wrong.stderr(), /port-secretish/, 'the value is not quoted');
  },
);

t.test('a node started with no company active says why it is not ready and what to do', async (t) => {
  const dir = t.testdir({ 'config.yaml': 'api: {port: 0}\n' });
  const run = runSvc(['serve', '--config', join(dir, 'config.yaml')], {}, dir);
  t.teardown(() => run.kill('SIGKILL'));
  const said = await run.waitForLog((line) => line['event'] === 'unconfigured');
  t.match(said.msg, /no company document is active: \/ready answers 503 until one is \(svc config put FILE/);
  run.kill('SIGTERM');
  t.equal(await run.exited, 0);
});

t.test(
  'a node told to isolate sandboxes where bwrap is missing refuses to start, naming the package',
  async (t) => {
    const dir = t.testdir({
      'config.yaml': 'api: {host: 127.0.0.1, port: 0}\nsandbox: {isolation: bubblewrap, network: none}\n',
    });
    const run = await svc(['serve', '--config', join(dir, 'config.yaml')], { PATH: join(dir, 'no-bin') });
    t.equal(run.code, 1);
    t.match(
      run.err,
      /sandbox\.isolation is bubblewrap, but bwrap was not found on PATH \(Debian: apt-get install bubblewrap\)/,
    );
  },
);

t.test(
  'network none without bubblewrap is refused at start: a process run shares the node’s network',
  async (t) => {
    const dir = t.testdir({ 'config.yaml': 'api: {port: 0}\nsandbox: {network: none}\n' });
    const run = await svc(['serve', '--config', join(dir, 'config.yaml')], {});
    t.equal(run.code, 1);
    t.match(run.err, /sandbox\.network: none needs sandbox\.isolation: bubblewrap/);
  },
);
