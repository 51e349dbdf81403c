/**
 * A client command against a node that does not answer (a `svc serve` child stopped with SIGSTOP: its
 * listener accepts, nothing answers) gives up after a short patience, naming the node and how long it
 * waited, instead of the 300 s a backup may take: 10 s by default for a read, `--timeout SECONDS` or
 * `$SVC_TIMEOUT` to change it; a bad value is a usage error.
 */
import t from 'tap';
import { main } from '../../scripts/svc.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

async function run(args: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const started = Date.now();
  const code = await main(
    args,
    { SVC_TOKEN: TOKEN, ...env },
    { write: (s: string) => (out += s) },
    { write: (s: string) => (err += s) },
  );
  return { code, out, err, seconds: (Date.now() - started) / 1000 };
}

t.test('a stopped node: reads give up after a short patience, naming the node', async (t) => {
  const node = await startNode(t);
  node.run.kill('SIGSTOP');
  t.teardown(() => node.run.kill('SIGCONT'));
  const origin = new URL(node.url).origin;

  const flag = await run(['fleet', 'status', '--url', node.url, '--timeout', '1']);
  t.equal(flag.code, 1);
  t.ok(flag.seconds < 5, `--timeout 1 gives up at once (${flag.seconds} s)`);
  t.equal(
    flag.err,
    `svc fleet: ${origin} did not answer in 1 s (stopped, paused or overloaded?): pass --timeout SECONDS or set SVC_TIMEOUT to wait longer\n`,
  );

  const env = await run(['events', 'list', '--url', node.url], { SVC_TIMEOUT: '2' });
  t.equal(env.code, 1);
  t.ok(env.seconds >= 1.9 && env.seconds < 6, `SVC_TIMEOUT=2 is the patience (${env.seconds} s)`);
  t.match(env.err, new RegExp(`svc events: ${origin} did not answer in 2 s`));

  const plain = await run(['fleet', 'status', '--url', node.url]);
  t.equal(plain.code, 1);
  t.ok(plain.seconds >= 9.5 && plain.seconds < 15, `a read waits 10 s by default (${plain.seconds} s)`);
  t.match(plain.err, /did not answer in 10 s/);

  // A write that goes unanswered may still have taken effect: the message says to read before repeating.
  const write = await run([
    'fleet',
    'remove',
    'node-x',
    '--confirm',
    'node-x',
    '--url',
    node.url,
    '--timeout',
    '1',
  ]);
  t.equal(write.code, 1);
  t.match(write.err, /did not answer in 1 s.*it may still have been done: read before repeating/s);
});

t.test('a timeout that is not a positive number of seconds is a usage error', async (t) => {
  for (const [args, env] of [
    [['fleet', 'status', '--timeout', 'soon'], {}],
    [['fleet', 'status', '--timeout', '0'], {}],
    [['fleet', 'status'], { SVC_TIMEOUT: '-3' }],
  ] as const) {
    const result = await run([...args, '--url', 'http://127.0.0.1:9'], env);
    t.equal(result.code, 2, `${args.join(' ')} ${JSON.stringify(env)}`);
    t.match(result.err, /timeout.*seconds/i);
  }
});
