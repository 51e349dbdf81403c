/**
 * The broker part of the bus contract (`GET /fleet/broker` and the peer removal read it): every engine
 * names the server it talks to among those reported, a healthy single broker shows no disagreement, and
 * a removal the broker cannot do is a result, never an exception.
 */
import type { Test } from 'tap';
import type { BusFixture } from './contract-helpers.js';

type WithBus = (name: string, body: (fx: BusFixture, id: string, t: Test) => Promise<void>) => void;

export function registerBroker(withBus: WithBus): void {
  withBus(
    'broker membership names the connected server, reported and advertised, in agreement',
    async (fx, id, t) => {
      // A stream of its own, so the broker reports at least one copy.
      await fx.bus.ensureStream({ name: `B${id}`, subjects: [`broker.${id}.>`] });
      const m = await fx.bus.brokerMembership();
      t.equal(m.engine, fx.bus.engine);
      t.ok(m.advertised.servers.length >= 1, 'something is advertised');
      t.ok(
        m.reported.servers.some((s) => s.name === m.server),
        `the connected server ${m.server} is among those reported`,
      );
      t.same(m.disagreements, [], 'one healthy broker agrees with itself');
    },
  );

  withBus('removing a peer the broker cannot remove is a refusal, not an error', async (fx, id, t) => {
    const result = await fx.bus.removeBrokerPeer(`nobody-${id}`);
    t.equal(result.removed, false);
    if (!result.removed) t.ok(result.detail.length > 0, `it says why: ${result.detail}`);
  });
}
