/**
 * A node whose keyring cannot open the active revision refuses to start, and says which fix applies: a key id
 * the keyring lacks is added back; a key id it holds with other material gets its old material back.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { freePort, runSvc } from '../harness/child.js';

const key = (): string => randomBytes(32).toString('base64');

t.test('a keyring that cannot open the active revision stops the start with the fix', async (t) => {
  const dir = t.testdir({ 'company.yaml': 'name: Keyring Co\n' });
  const port = await freePort();
  const config = (keyId: string): string => {
    const file = join(dir, `config-${keyId}.yaml`);
    writeFileSync(
      file,
      [
        `api: {host: 127.0.0.1, port: ${port}}`,
        `secrets: {active_key_id: ${keyId}, keys: [{id: ${keyId}, material: "\${SVC_KEY}"}]}`,
        `stream: {store_dir: ${join(dir, 'data')}}`,
      ].join('\n'),
    );
    return file;
  };
  const first = runSvc(['serve', '--config', config('k1'), '--company', join(dir, 'company.yaml')], {
    SVC_KEY: key(),
  });
  t.teardown(() => first.kill('SIGKILL'));
  await first.waitForLog((line) => line.msg === 'config applied');
  first.kill('SIGTERM');
  t.equal(await first.exited, 0);

  const regenerated = runSvc(['serve', '--config', config('k1')], { SVC_KEY: key() });
  t.teardown(() => regenerated.kill('SIGKILL'));
  t.equal(await regenerated.exited, 1, 'same key id, other material: refused');
  t.match(
    regenerated.stderr(),
    /cannot be opened: it is sealed under key k1, and the material secrets\.keys gives k1 does not open it; set k1's material back to the key it had when the revision was stored\n$/,
  );
  t.notMatch(regenerated.stderr(), /add that key/, 'k1 is in the keyring: adding it is no fix');

  const missing = runSvc(['serve', '--config', config('k2')], { SVC_KEY: key() });
  t.teardown(() => missing.kill('SIGKILL'));
  t.equal(await missing.exited, 1, 'the key id gone: refused');
  t.match(
    missing.stderr(),
    /sealed under key k1, which this node's keyring does not hold; add that key to secrets\.keys/,
  );
});
