/**
 * A shared boot that fails part-way (a later projection's init throws, or one fails while joining its
 * stream's tail) leaves nothing following: what it had started is stopped before the error reaches the
 * caller, who is handed nothing to stop. Follows are counted on the bus the boot is given.
 */
import t, { type Test } from 'tap';
import { Buckets, ensureCatalogue, openMemoryBus, Streams, Subjects, type Bus } from '../../../bus/index.js';
import { runProjectionsShared, type AnyProjection, type Projection } from '../../../projections/index.js';

/** The bus as it is, with the follows it has open counted. */
function countingFollows(bus: Bus): { bus: Bus; open: () => number } {
  let open = 0;
  const follow: Bus['follow'] = async (stream, opts, onMessage) => {
    const sub = await bus.follow(stream, opts, onMessage);
    open += 1;
    let stopped = false;
    return {
      stop: async () => {
        if (!stopped) open -= 1;
        stopped = true;
        await sub.stop();
      },
    };
  };
  return {
    bus: new Proxy(bus, {
      get: (target, key) => (key === 'follow' ? follow : (Reflect.get(target, key) as unknown)),
    }),
    open: () => open,
  };
}

const counter = (name: string, stream: string, extra: Partial<Projection<{ n: number }>> = {}) =>
  ({
    name,
    version: 1,
    stream,
    init: () => ({ n: 0 }),
    apply: (state: { n: number }) => void (state.n += 1),
    ...extra,
  }) as AnyProjection<unknown>;

const failingInit = (name: string, stream: string, extra: Partial<Projection<{ n: number }>> = {}) =>
  counter(name, stream, {
    ...extra,
    init: () => {
      throw new Error(`${name} cannot start`);
    },
  });

async function bootFails(t: Test, projections: AnyProjection<unknown>[], message: RegExp) {
  const memory = await openMemoryBus({});
  t.teardown(() => memory.close());
  await ensureCatalogue(memory);
  const { bus, open } = countingFollows(memory);
  await t.rejects(runProjectionsShared({ bus, projections }), message);
  t.equal(open(), 0, 'no follow is left open');
}

t.test('a later stream group whose init throws stops the groups already booted', (t) =>
  bootFails(
    t,
    [counter('a', Streams.Events), counter('b', Streams.Events), failingInit('c', Streams.Spend)],
    /c cannot start/,
  ),
);

t.test('a projection booting alone whose init throws stops the shared groups', (t) =>
  bootFails(
    t,
    [counter('a', Streams.Events), failingInit('d', Streams.Events, { subjects: Subjects.events })],
    /d cannot start/,
  ),
);

t.test('a member that fails on joining the tail takes the members before it off the tail', async (t) => {
  const memory = await openMemoryBus({});
  t.teardown(() => memory.close());
  await ensureCatalogue(memory);
  const coord = await memory.kv({ name: Buckets.Coord, history: 4 });
  const { bus, open } = countingFollows(memory);
  // Its watched key is no key the bucket takes: reading it throws after the member joined the tail.
  const badWatch = counter('w', Streams.Events, {
    watches: [{ bucket: coord, key: 'not a key', apply: () => undefined }],
  });
  await t.rejects(
    runProjectionsShared({ bus, projections: [counter('a', Streams.Events), badWatch] }),
    /invalid key/,
  );
  t.equal(open(), 0, 'the shared tail is closed');
});
