/**
 * A node that comes back while another node records its run lost (ops/sandboxes.md "Retention"): the
 * record can land after the returning node looked at its records at start. The node follows the run
 * records, so the record that ends its run stops the run's process the moment it arrives, and the node
 * never stores the run live again over it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { openSandboxRecords } from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus } from '../../../bus/index.js';
import { killGroupsOf, pidsRunning } from '../../harness/proc.js';
import { until } from '../../harness/until.js';
import { launchOf, superviseLocally } from './local-supervisor.js';

const logger = pino({ level: 'silent' });
const DAY = 24 * 3_600_000;

t.test('a run recorded lost after its node came back is stopped on that node at once', async (tt) => {
  const bus = await openMemoryBus();
  await ensureCatalogue(bus);
  tt.teardown(() => bus.close());
  const root = mkdtempSync(join(tmpdir(), 'svc-lost-race-'));
  tt.teardown(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));
  const argv = ['sleep', String(15_000 + Math.floor(Math.random() * 3_000))];
  tt.teardown(() => killGroupsOf(argv));

  const before = await openSandboxRecords({ bus, node: 'node-0', logger });
  const away = superviseLocally({ bus, records: before, root, logger });
  await away.launch(launchOf('sb-race', argv.join(' ')));
  await until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === 1,
    { everyMs: 25 },
  );
  await away.stop();
  await before.stop();

  // node-0 is back first: its start finds the run live, as it is.
  const back = await openSandboxRecords({ bus, node: 'node-0', logger });
  tt.teardown(() => back.stop());
  const supervisor = superviseLocally({ bus, records: back, root, logger });
  tt.teardown(() => supervisor.stop());
  tt.equal(back.get('sb-race')?.status, 'running', 'the returning node holds the run live');

  // A peer whose view of the fleet predates the return records the run lost only now.
  const clock = { ms: 0 };
  const now = (): Date => new Date(clock.ms);
  const peer = await openSandboxRecords({ bus, node: 'node-1', logger, now });
  tt.teardown(() => peer.stop());
  clock.ms = (peer.storedAt('sb-race') ?? 0) + 31 * DAY;
  const ender = superviseLocally({
    bus,
    records: peer,
    root: join(root, 'node-1'),
    logger,
    node: 'node-1',
    now,
    roster: () => Promise.resolve(['node-1']),
  });
  tt.teardown(() => ender.stop());
  await until(
    () => Promise.resolve(peer.get('sb-race')),
    (run) => run?.status === 'failed',
    { timeoutMs: 10_000, everyMs: 10 },
  );

  const seen = await until(
    () => Promise.resolve(back.get('sb-race')),
    (run) => run?.status === 'failed',
    { timeoutMs: 10_000, everyMs: 10 },
  );
  tt.match(seen?.error, /node node-0 was lost/, 'the returning node takes the lost record of its own run');
  await until(
    () => Promise.resolve(pidsRunning(argv)),
    (pids) => pids.length === 0,
    { timeoutMs: 10_000, everyMs: 25 },
  );
  tt.pass('and stops what runs of it on its machine');
  await supervisor.stop();
  tt.equal(peer.get('sb-race')?.status, 'failed', 'nothing stored the run live again over the record');
});
