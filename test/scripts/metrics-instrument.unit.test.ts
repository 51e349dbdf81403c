/**
 * The metrics wrapper of the bus (`instrument`) is the bus to everything the node wires: its methods act
 * on the bus it wraps, are bound once (a round calls the bus a few times), and follow a method replaced.
 */
import t from 'tap';
import type { Bus } from '../../bus/index.js';
import { createNodeMetrics } from '../../scripts/metrics-wiring.js';

t.test("the wrapped bus's methods act on the bus, bound once, and a replaced one afresh", async (t) => {
  const inner = {
    name: 'inner',
    linked(this: { name: string }): string {
      return this.name;
    },
  };
  const bus = createNodeMetrics({ nodeId: 'n1' }).instrument(inner as unknown as Bus);
  // Read as a caller that keeps the method apart from the bus does.
  const method = (): (() => string) => Reflect.get(bus, 'linked') as unknown as () => string;
  const linked = method();
  t.equal(linked(), 'inner', 'bound to the wrapped bus, called detached');
  t.equal(method(), linked, 'the same bound method at every read');
  inner.linked = function (this: { name: string }): string {
    return `${this.name} again`;
  };
  t.not(method(), linked, 'a method replaced on the bus is not the old binding');
  t.equal(method()(), 'inner again');
  t.equal((bus as unknown as { name: string }).name, 'inner', 'other properties read through');
});
