import t from 'tap';
import {
  canonicalInstant,
  compareInstants,
  instantMs,
  isNotOlder,
} from '../../../projections/time/instants.js';

t.test('one instant written in every encoding compares equal', async (t) => {
  const base = Date.parse('2026-01-01T00:00:00Z');
  for (const text of [
    '2026-01-01T00:00:00Z',
    '2026-01-01T01:00:00+01:00',
    '2025-12-31T19:00:00-05:00',
    '2026-01-01t00:00:00z',
    '2026-01-01 00:00:00Z',
    '2026-01-01T00:00:00.000000Z',
    '2026-01-01T05:30:00+0530',
    String(base / 1000),
    String(base),
  ]) {
    t.equal(instantMs(text), base, text);
  }
  t.equal(instantMs(base), base, 'epoch milliseconds as a number');
});

t.test('fractions keep sub-millisecond order', async (t) => {
  t.ok(compareInstants('2026-01-01T00:00:00.000001Z', '2026-01-01T00:00:00Z') > 0);
  t.ok(compareInstants('2026-01-01T00:00:00.1Z', '2026-01-01T00:00:00.09Z') > 0);
});

t.test(
  'a later instant written with an offset beats an earlier one in Z, whatever the strings say',
  async (t) => {
    // As strings "2026-01-01T00:30:00+01:00" < "2026-01-01T00:00:00Z" is false; as instants it is older.
    t.ok(compareInstants('2026-01-01T00:30:00+01:00', '2026-01-01T00:00:00Z') < 0);
  },
);

t.test('garbage and impossible dates name no instant and sort first', async (t) => {
  for (const bad of ['yesterday', '', '2026-02-30T00:00:00Z', '2026-01-01', null, {}, NaN]) {
    t.equal(instantMs(bad), null, JSON.stringify(bad));
  }
  t.ok(compareInstants('nonsense', '2026-01-01T00:00:00Z') < 0);
  t.equal(canonicalInstant('2026-01-01T01:00:00+01:00'), '2026-01-01T00:00:00.000Z');
  t.equal(canonicalInstant('nope'), 'nope');
});

t.test('the gate applies equal or newer stamps, and an unparseable one only over nothing', async (t) => {
  t.ok(isNotOlder(5, 5));
  t.ok(isNotOlder(6, 5));
  t.notOk(isNotOlder(4, 5));
  t.ok(isNotOlder(null, null));
  t.notOk(isNotOlder(null, 5));
  t.ok(isNotOlder(1, undefined));
});

t.test('a decimal comma and spaces around a stamp still name its instant', async (t) => {
  const at = instantMs('2026-01-01T00:00:00.250Z');
  t.equal(at, Date.parse('2026-01-01T00:00:00.250Z'));
  t.equal(instantMs('2026-01-01T00:00:00,250Z'), at);
  t.equal(instantMs(' 2026-01-01T01:00:00,25+01:00\n'), at);
  t.equal(instantMs(' 1767225600.25 '), at);
});
