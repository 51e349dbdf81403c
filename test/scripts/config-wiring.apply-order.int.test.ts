/**
 * A node's configuration wiring: the apply an activation causes waits for this node's write to answer, so
 * the writer's answer (and the PUT's read-your-writes answer after it) never waits for the subsystems.
 */
import { pino } from 'pino';
import t from 'tap';
import type { SubsystemApplier } from '../../actors/index.js';
import { sendCommand } from '../../bus/index.js';
import { Commands } from '../../schema/index.js';
import { startConfiguration } from '../../scripts/config-wiring.js';
import { bootedNode } from '../http/fixtures/booted-node.js';
import { aConfigWrite } from '../actors/fixtures/config-write.js';

t.test('a write is answered before the apply it caused begins', async (t) => {
  const logger = pino({ level: 'silent' });
  const { bus, catalogue, config, node } = await bootedNode(t, { logger });
  let answered = false;
  const seenAtApply: boolean[] = [];
  let applied: () => void = () => undefined;
  const appliedOnce = new Promise<void>((resolve) => (applied = resolve));
  const org: SubsystemApplier = {
    name: 'org',
    apply: async () => {
      seenAtApply.push(answered);
      applied();
    },
    rollback: async () => undefined,
  };
  const configuration = await startConfiguration({ bus, coord: catalogue.coord, node, config, logger, subsystems: [org] }); // prettier-ignore
  t.teardown(() => configuration.stop());

  const command = aConfigWrite({ name: 'Acme', roles: [{ name: 'Ada' }] }, null, {
    summary: 'first',
    revision_id: '00000000-0000-4000-8000-000000000001',
  });
  const reply = await sendCommand(bus, Commands.config.write, command, { timeoutMs: 10_000 });
  answered = true;
  t.match(reply, { outcome: 'stored' });
  await appliedOnce;
  t.same(seenAtApply, [true], 'the subsystem saw the write answered when its apply began');
});
