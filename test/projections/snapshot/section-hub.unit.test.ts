/**
 * A live section is built only for someone: with no subscriber a push builds nothing (the read models'
 * 5-second tick pushes `tokens` and `budget` whether or not a socket listens), with one it is built once and
 * every subscriber gets it, and a failing subscriber does not stop the others.
 */
import t from 'tap';
import { SectionHub } from '../../../projections/snapshot/snapshot-section.js';

t.test('a push with no subscriber builds nothing; with subscribers it builds once for all', async (t) => {
  let builds = 0;
  const hub = new SectionHub('tokens', () => ({ build: ++builds }));
  hub.emitCurrent();
  t.equal(builds, 0, 'nobody listens: not built');
  const got: unknown[] = [];
  const stopFailing = hub.subscribe(() => {
    throw new Error('closed socket');
  });
  const stop = hub.subscribe((data, mode) => got.push({ data, mode }));
  hub.emitCurrent();
  t.equal(builds, 1);
  t.same(got, [{ data: { build: 1 }, mode: 'replace' }], 'the failing subscriber did not stop the other');
  stop();
  stopFailing();
  hub.emitCurrent();
  t.equal(builds, 1, 'everyone left: not built again');
  t.same(hub.current(), { build: 2 }, 'a read still builds it');
});
