import t from 'tap';
import { bootstrapHide, bubblewrapIsolation, processIsolation } from '../../../actors/index.js';
import { sandboxIsolation } from '../../../scripts/sandbox-wiring.js';

t.test('the bootstrap file hides its own directory, or itself when it sits in a system root', async (t) => {
  t.equal(bootstrapHide('/etc/svc/svc.yaml'), '/etc/svc');
  t.equal(bootstrapHide('/etc/svc.yaml'), '/etc/svc.yaml');
  t.equal(bootstrapHide('/srv/svc/config.yaml'), '/srv/svc');
  t.equal(bootstrapHide(null), null);
});

t.test('a process run is the command itself; a bubblewrap run is the command inside bwrap', async (t) => {
  const at = { base: '/tmp/run', cwd: '/tmp/run/work', dieWithParent: false };
  t.same(processIsolation.command(['sh', '-c', 'x'], at), { file: 'sh', args: ['-c', 'x'] });
  const { file, args } = bubblewrapIsolation({ network: 'host', hide: [] }).command(['sh', '-c', 'x'], at);
  t.equal(file, 'bwrap');
  t.same(args.slice(-5), ['/tmp/run/work', '--', 'sh', '-c', 'x']);
  t.ok(args.includes('--unshare-all') && args.includes('--share-net'));
  t.notOk(args.includes('--die-with-parent'), 'an agent outlives the node');
  const step = bubblewrapIsolation({ network: 'none', hide: [] }).command(['true'], {
    ...at,
    dieWithParent: true,
  });
  t.ok(step.args.includes('--die-with-parent'), 'a setup step ends with the node');
  t.notOk(step.args.includes('--share-net'));
});

t.test(
  'the node’s isolation follows sandbox.isolation and hides its store and bootstrap directory',
  async (t) => {
    const base = { stream: { store_dir: '/etc' }, file: '/etc/svc/svc.yaml' };
    t.equal(
      sandboxIsolation({ ...base, sandbox: { isolation: 'process', network: 'host' } }).kind,
      'process',
    );
    const isolation = sandboxIsolation({ ...base, sandbox: { isolation: 'bubblewrap', network: 'host' } });
    t.equal(isolation.kind, 'bubblewrap');
    const { args } = isolation.command(['true'], { base: '/tmp/r', cwd: '/tmp/r', dieWithParent: false });
    t.ok(args.join(' ').includes('--tmpfs /etc '), 'the store directory (here /etc itself) is covered');
  },
);
