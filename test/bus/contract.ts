/**
 * The bus contract: one list of behaviours every engine must show. Each engine's test file calls
 * `busContract` with a way to open a fresh bus; the same named tests run for each, so the count per
 * engine is equal by construction. Names are random per test so one server can serve them all.
 */
import type { Test } from 'tap';
import { registerBroker } from './contract-broker.js';
import { registerConsumers } from './contract-consumers.js';
import { unique, type BusFixture } from './contract-helpers.js';
import { registerKv } from './contract-kv.js';
import { registerStreams } from './contract-streams.js';

export type { BusFixture } from './contract-helpers.js';

export function busContract(t: Test, engine: string, open: () => Promise<BusFixture>): void {
  /** Runs `body` with a fresh fixture and a unique stream name, always cleaning up. */
  const withBus = (name: string, body: (fx: BusFixture, id: string, t: Test) => Promise<void>): void => {
    void t.test(name, async (t) => {
      const fx = await open();
      try {
        await body(fx, unique(), t);
      } finally {
        await fx.cleanup();
      }
    });
  };
  t.comment(`bus contract: ${engine}`);
  registerStreams(withBus, engine);
  registerConsumers(withBus);
  registerKv(withBus, engine);
  registerBroker(withBus);
}
