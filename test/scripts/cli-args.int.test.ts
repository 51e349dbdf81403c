/**
 * Where a client command finds its node: a `--config` file that cannot say (missing, refused, binding no
 * API port) is a usage error naming the file, never a silent fall back to the default address.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { main } from '../../scripts/svc.js';

function capture() {
  let text = '';
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

async function svc(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out = capture();
  const err = capture();
  const code = await main(args, { SVC_LOG_LEVEL: 'silent', ...env }, out, err);
  return { code, out: out.text(), err: err.text() };
}

t.test('a --config file that cannot name the node is refused before any request', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-args-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, 'missing.yaml');
  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'api: [not: a map\n');
  const closed = join(dir, 'closed.yaml');
  writeFileSync(closed, 'api: {port: 0}\n');
  for (const [file, reason] of [
    [missing, /cannot read .*missing\.yaml \(ENOENT\)/],
    [broken, /broken\.yaml/],
  ] as const) {
    for (const args of [['config', 'revisions'], ['secrets', 'list']]) {
      const run = await svc([...args, '--config', file]);
      t.equal(run.code, 2, `${args.join(' ')}: a usage error`);
      t.match(run.err, /the node's address cannot be read from/);
      t.match(run.err, reason);
      t.notMatch(run.err, /127\.0\.0\.1:8080/, 'no default address tried');
    }
  }
  const fromEnv = await svc(['config', 'revisions'], { SVC_CONFIG: missing });
  t.equal(fromEnv.code, 2, 'SVC_CONFIG names the file too');
  const none = await svc(['config', 'revisions', '--config', closed]);
  t.equal(none.code, 2);
  t.match(none.err, /binds no API listener \(api\.port: 0\): pass --url/);
});
