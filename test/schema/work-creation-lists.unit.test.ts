/**
 * The listing's ordered lists (schema/work/creation-lists.ts) leave a removed item out of every read that
 * follows, in the order items came, whether the removal is read at once or later, and when an item
 * removed and not yet read is appended again.
 */
import fc from 'fast-check';
import t from 'tap';
import { CreationLists } from '../../schema/work/creation-lists.js';

interface Item {
  readonly n: number;
  readonly project: string;
}

const op = fc.oneof(
  fc.record({ op: fc.constant('push' as const), project: fc.constantFrom('A', 'B') }),
  fc.record({ op: fc.constant('again' as const), n: fc.nat() }),
  fc.record({ op: fc.constant('remove' as const), n: fc.nat() }),
  fc.constant({ op: 'read' as const }),
);

t.test('every read lists the held items in the order they came, per project too', async (t) => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
      const lists = new CreationLists<Item>();
      const made: Item[] = [];
      let model: Item[] = [];
      const agrees = () => {
        const byProject = ['A', 'B']
          .map((p) => [p, model.filter((i) => i.project === p)] as const)
          .filter(([, items]) => items.length > 0);
        return (
          JSON.stringify(lists.all()) === JSON.stringify(model) &&
          JSON.stringify([...lists.byProject()].sort(([a], [b]) => a.localeCompare(b))) ===
            JSON.stringify(byProject)
        );
      };
      for (const o of ops) {
        if (o.op === 'push') {
          const item = { n: made.length, project: o.project };
          made.push(item);
          lists.push(item);
          model.push(item);
        } else if (o.op === 'again') {
          // An item removed earlier (maybe not yet read since) comes back, at the end.
          const item = made[o.n % Math.max(1, made.length)];
          if (!item || model.includes(item)) continue;
          lists.push(item);
          model.push(item);
        } else if (o.op === 'remove') {
          const item = model[o.n % Math.max(1, model.length)];
          if (!item) continue;
          lists.remove(item);
          model = model.filter((i) => i !== item);
        } else if (!agrees()) return false;
      }
      return agrees();
    }),
    { numRuns: 500 },
  );
  t.pass('held');
});
