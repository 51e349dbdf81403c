/**
 * A bounded read (a boot's replay) that runs while another connection appends and purges by subject ends
 * with what is still stored: nats-server was seen to leave such a read's consumer waiting past the messages
 * that remain, and the read then looks what is left and goes on or ends (bus/jetstream/reader.ts).
 */
import t from 'tap';
import { openBus, type StoredMessage } from '../../bus/index.js';
import { startNatsServer } from '../harness/nats-server.js';

const enc = new TextEncoder();

t.test('a replay racing a subject-filtered purge ends, with the kept record read and in order', async (t) => {
  const server = await startNatsServer({ t });
  const reader = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => reader.close());
  const writer = await openBus({ type: 'jetstream', url: server.url });
  t.teardown(() => writer.close());
  await writer.ensureStream({ name: 'S', subjects: ['c.>'] });
  await writer.publish('c.kept', enc.encode('kept'));
  let ended = 0;
  for (let round = 0; round < 40; round++) {
    for (let i = 1; i <= 6; i++) await writer.publish('c.a.count', enc.encode(`${i}`));
    const read = (async () => {
      const seen: StoredMessage[] = [];
      for await (const m of reader.replay('S')) seen.push(m);
      return seen;
    })();
    // The purge lands at a different point of the read each round.
    for (let k = 0; k < round % 4; k++) await Promise.resolve();
    const ack = await writer.publish('c.sum', enc.encode('sum'));
    await writer.purgeBelow('S', ack.seq, 'c.*.count');
    const seen = await read;
    const seqs = seen.map((m) => m.seq);
    if (seen[0]?.subject !== 'c.kept' || seqs.some((s, i) => i > 0 && s <= seqs[i - 1]!))
      t.fail(`round ${round}: read ${seen.map((m) => m.subject).join(',')}`);
    ended += 1;
  }
  t.equal(ended, 40, 'every read ended');
});
