import fc from 'fast-check';
import t from 'tap';
import { compareInstants, isNewer, parseInstant } from '../../schema/index.js';

t.test('Z and +00:00 name the same instant', async (t) => {
  t.same(parseInstant('2026-11-22T10:00:00Z'), parseInstant('2026-11-22T10:00:00+00:00'));
  t.same(parseInstant('2026-11-22T10:00:00Z'), parseInstant('2026-11-22T12:00:00+02:00'));
  t.same(parseInstant('2026-11-22T10:00:00Z'), parseInstant('2026-11-22T05:30:00-04:30'));
});

t.test('fractional digits compare by value, not by length', async (t) => {
  const a = parseInstant('2026-11-22T10:00:00.5Z')!;
  const b = parseInstant('2026-11-22T10:00:00.123456+00:00')!;
  const c = parseInstant('2026-11-22T10:00:00.500000001Z')!;
  t.ok(compareInstants(b, a) < 0, '.123456 is before .5');
  t.ok(compareInstants(a, c) < 0, '.5 is before .500000001');
  t.equal(compareInstants(a, parseInstant('2026-11-22T10:00:00.500Z')!), 0);
  t.ok(compareInstants(parseInstant('2026-11-22T10:00:00Z')!, b) < 0);
});

t.test('strings that are not RFC 3339 instants are refused', async (t) => {
  for (const bad of [
    '',
    'yesterday',
    '2026-11-22',
    '2026-02-30T00:00:00Z',
    '2026-11-22T25:00:00Z',
    '2026-11-22T10:00:00',
    // RFC 3339's offset is an hour 00-23 and a minute 00-59, as the time of day is.
    '2026-11-22T10:00:00+24:00',
    '2026-11-22T10:00:00+99:99',
    '2026-11-22T10:00:00-05:60',
  ]) {
    t.equal(parseInstant(bad), null, JSON.stringify(bad));
  }
});

t.test('an older stamp never counts as newer, whatever its encoding', async (t) => {
  t.notOk(isNewer('2026-11-22T11:59:59.999+01:00', '2026-11-22T11:00:00Z'));
  t.ok(isNewer('2026-11-22T11:00:00.000001Z', '2026-11-22T12:00:00+01:00'));
  t.ok(isNewer('2026-11-22T11:00:00Z', null));
  t.notOk(isNewer('garbage', null));
});

t.test('ordering agrees with Date for millisecond stamps in any offset', async (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 4_000_000_000_000 }),
      fc.integer({ min: 0, max: 4_000_000_000_000 }),
      fc.integer({ min: -14 * 60, max: 14 * 60 }),
      (x, y, offset) => {
        const shifted = (ms: number): string => {
          const local = new Date(ms + offset * 60_000).toISOString().slice(0, -1);
          const sign = offset < 0 ? '-' : '+';
          const abs = Math.abs(offset);
          return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        };
        const a = parseInstant(shifted(x))!;
        const b = parseInstant(new Date(y).toISOString())!;
        return Math.sign(compareInstants(a, b)) === Math.sign(x - y);
      },
    ),
  );
  t.pass('property held');
});

t.test('the toISOString form and the general form agree, impossible dates included', async (t) => {
  t.equal(parseInstant('2026-02-30T00:00:00.000Z'), null);
  t.equal(parseInstant('2026-02-28T24:00:00.000Z'), null);
  t.same(parseInstant('2026-02-28T23:59:59.999Z'), parseInstant('2026-02-28T23:59:59.999000+00:00'));
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), (x) => {
      const iso = new Date(x).toISOString();
      const general = parseInstant(iso.replace('Z', '+00:00'));
      const fast = parseInstant(iso);
      return (
        fast !== null && general !== null && fast.ms === general.ms && fast.ns === general.ns && fast.ms === x
      );
    }),
  );
  t.pass('agreed');
});

t.test('leap days and two-digit years are read as written', async (t) => {
  t.ok(parseInstant('2024-02-29T00:00:00.000Z'));
  t.equal(parseInstant('2023-02-29T00:00:00.000Z'), null);
  t.equal(parseInstant('2023-02-29T00:00:00+00:00'), null);
  t.equal(parseInstant('0050-01-01T00:00:00.000Z')?.ms, Date.parse('0050-01-01T00:00:00.000Z'));
  t.equal(parseInstant('0050-01-01T00:00:00Z')?.ms, Date.parse('0050-01-01T00:00:00.000Z'));
});
