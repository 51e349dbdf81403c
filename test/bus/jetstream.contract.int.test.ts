import t from 'tap';
import type { Bus } from '../../bus/index.js';
import { openJetStreamBus } from '../../bus/jetstream/index.js';
import { startNatsServer } from '../harness/nats-server.js';
import { busContract } from './contract.js';

// One server for the file; every contract test uses its own random stream and bucket names.
const server = await startNatsServer({ t });

busContract(t, 'jetstream', async () => {
  let bus: Bus = await openJetStreamBus({ url: server.url });
  return {
    get bus() {
      return bus;
    },
    // A new connection to the same server: positions and revisions live in the server's store.
    reopen: async () => {
      await bus.close();
      bus = await openJetStreamBus({ url: server.url });
      return bus;
    },
    cleanup: () => bus.close(),
  };
});
