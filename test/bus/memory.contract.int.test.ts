import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openMemoryBus } from '../../bus/memory/index.js';
import { busContract } from './contract.js';

t.test('pure memory', async (t) => {
  busContract(t, 'memory', async () => {
    const bus = await openMemoryBus({});
    return { bus, cleanup: () => bus.close() };
  });
});

t.test('persisted in a store directory', async (t) => {
  busContract(t, 'memory (store_dir)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-membus-'));
    let bus = await openMemoryBus({ storeDir: dir });
    return {
      get bus() {
        return bus;
      },
      reopen: async () => {
        await bus.close();
        bus = await openMemoryBus({ storeDir: dir });
        return bus;
      },
      cleanup: async () => {
        await bus.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});
