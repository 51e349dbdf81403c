// The hub's hand-over of pushed frames: encoded once, written together per socket, in the order they were made.
import { pino } from 'pino';
import t from 'tap';
import { StreamHub } from '../../http/index.js';
import { SectionRegistry } from '../../projections/index.js';

/** A socket that keeps up, recording each write and how many of them were corked together. */
function sink() {
  const written: Array<string | Uint8Array> = [];
  const corks: number[] = [];
  return {
    written,
    corks,
    kinds: () =>
      written.map(
        (w) => (JSON.parse(typeof w === 'string' ? w : Buffer.from(w).toString()) as { kind: string }).kind,
      ),
    sink: {
      send: (text: string | Uint8Array) => (written.push(text), 1),
      bufferedAmount: () => 0,
      end: () => undefined,
      cork: (batch: () => void) => {
        const before = written.length;
        batch();
        corks.push(written.length - before);
      },
    },
  };
}

const hubOf = () =>
  new StreamHub({ sections: new SectionRegistry(), questions: new Map(), logger: pino({ level: 'silent' }) });

t.test(
  'frames pushed in one turn reach each socket in order, in one corked write, as the same bytes',
  async (t) => {
    const hub = hubOf();
    t.teardown(() => hub.close());
    const a = sink();
    const b = sink();
    hub.attach(a.sink, null, null);
    hub.attach(b.sink, null, null);
    for (let i = 0; i < 5; i++) hub.push('event', { id: `e-${i}` }, 'merge');
    await Promise.resolve();
    for (const s of [a, b]) {
      t.same(s.kinds(), ['snapshot', 'event', 'event', 'event', 'event', 'event']);
      t.same(s.corks, [5], 'the five frames went out in one corked write');
    }
    t.same(
      a.written
        .slice(1)
        .map((w) => (JSON.parse(Buffer.from(w).toString()) as { data: { id: string } }).data.id),
      ['e-0', 'e-1', 'e-2', 'e-3', 'e-4'],
    );
    t.equal(a.written[1], b.written[1], 'every socket is handed the one encoding of a frame');
  },
);

t.test('a socket opened after a push in the same turn gets only the snapshot, not that frame', async (t) => {
  const hub = hubOf();
  t.teardown(() => hub.close());
  const early = sink();
  hub.attach(early.sink, null, null);
  hub.push('event', { id: 'before' }, 'merge');
  const late = sink();
  hub.attach(late.sink, null, null);
  hub.push('event', { id: 'after' }, 'merge');
  await Promise.resolve();
  t.same(early.kinds(), ['snapshot', 'event', 'event']);
  t.same(late.kinds(), ['snapshot', 'event']);
});

t.test('an answer on the socket follows the frames pushed before its question', async (t) => {
  const hub = hubOf();
  t.teardown(() => hub.close());
  const s = sink();
  const client = hub.attach(s.sink, null, null);
  hub.push('event', { id: 'e' }, 'merge');
  hub.receive(client, '{"kind":"ping"}');
  hub.receive(client, 'not json');
  t.same(s.kinds(), ['snapshot', 'event', 'pong', 'error']);
});

t.test('the stats read after a push count what the push sent', async (t) => {
  const hub = hubOf();
  t.teardown(() => hub.close());
  const s = sink();
  hub.attach(s.sink, null, null);
  hub.push('event', { id: 'e' }, 'merge');
  t.equal(hub.clientStats()[0]?.sent, 2, 'the snapshot and the event');
});

t.test(
  'a socket opened after the hub closed (a drain) is closed 1001 at once, with no snapshot',
  async (t) => {
    const hub = hubOf();
    hub.close();
    const late = sink();
    const ended: Array<[number, string]> = [];
    hub.attach({ ...late.sink, end: (code, reason) => void ended.push([code, reason]) }, null, null);
    t.same(late.written, [], 'no snapshot: the node is stopping');
    t.same(ended, [[1001, 'node stopping']]);
    t.equal(hub.count(), 0, 'not counted among the clients');
  },
);
