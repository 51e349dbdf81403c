/** The one JSON decode the projections fold with: a body that is not JSON is null, never a throw. */
import t from 'tap';
import { decodeJson } from '../../../projections/index.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

t.test('a stored body that is not JSON decodes as null instead of throwing', async (t) => {
  t.same(decodeJson(bytes('{"type":"x","n":1}')), { type: 'x', n: 1 });
  t.equal(decodeJson(bytes('null')), null);
  t.equal(decodeJson(bytes('{"type":')), null, 'a truncated body');
  t.equal(decodeJson(new Uint8Array([0xff, 0xfe])), null, 'bytes that are not text');
  t.equal(decodeJson(new Uint8Array()), null, 'an empty body');
});
