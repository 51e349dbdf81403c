import t, { type Test } from 'tap';
import { heartbeatMs, Liveness, silenceMs, type Link } from '../../bus/jetstream/liveness.js';

/** A link the test drops and restores, and a clock it moves (Liveness reads Date.now). */
function harness(t: Test) {
  let linked = true;
  const listeners = new Set<(linked: boolean) => void>();
  const link: Link = {
    linked: () => linked,
    onLinkChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const realNow = Date.now;
  let now = 1_000_000;
  Date.now = () => now;
  t.teardown(() => {
    Date.now = realNow;
  });
  return {
    link,
    listeners,
    advance: (ms: number) => {
      now += ms;
    },
    setLinked: (next: boolean) => {
      linked = next;
      for (const listener of listeners) listener(next);
    },
  };
}

t.test('a consumer heard from the server lives until three heartbeats pass in silence', async (t) => {
  const h = harness(t);
  const liveness = new Liveness(h.link);
  liveness.heard(true);
  h.advance(silenceMs);
  t.equal(liveness.lost(), null, 'not yet at exactly three heartbeats');
  h.advance(1);
  t.equal(liveness.lost(), 'silent');
  t.equal(liveness.lost(), null, 'a verdict is given once per attempt');
});

t.test('a new consumer never heard from the server is lost after two heartbeats', async (t) => {
  const h = harness(t);
  const liveness = new Liveness(h.link);
  liveness.opened();
  liveness.heard(false);
  h.advance(2 * heartbeatMs + 1);
  t.equal(liveness.lost(), 'unproven', 'what the client says of itself proves nothing');
});

t.test(
  'a reconnect too brief for the watchdog to see still makes the consumer prove itself again',
  async (t) => {
    const h = harness(t);
    const liveness = new Liveness(h.link);
    liveness.heard(true);
    h.advance(heartbeatMs);
    // Down and up between two watchdog ticks: lost() never runs while unlinked.
    h.setLinked(false);
    h.setLinked(true);
    h.advance(heartbeatMs);
    liveness.heard(false);
    h.advance(heartbeatMs + 1);
    t.equal(liveness.lost(), 'unproven', 'the server reached after the outage may not hold the consumer');
  },
);

t.test('while the link is down nothing counts as lost', async (t) => {
  const h = harness(t);
  const liveness = new Liveness(h.link);
  liveness.heard(true);
  h.setLinked(false);
  h.advance(10 * silenceMs);
  t.equal(liveness.lost(), null);
});

t.test('a closed judge stops following the link', async (t) => {
  const h = harness(t);
  const liveness = new Liveness(h.link);
  t.equal(h.listeners.size, 1);
  liveness.close();
  t.equal(h.listeners.size, 0);
});
