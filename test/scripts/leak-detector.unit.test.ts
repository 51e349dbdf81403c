import t from 'tap';
import { LeakDetector } from './fixtures/leak-detector.js';

t.test(
  'the detector finds a value raw, escaped, in hex, and inside base64 blobs at every alignment',
  async (t) => {
    const detector = new LeakDetector();
    const value = detector.plant('v', 'leak-"quoted"\\-value-0042');
    t.same(
      detector.search('raw', `x ${value} y`).map((l) => l.form),
      ['raw'],
    );
    t.same(
      detector.search('json', JSON.stringify({ a: value })).map((l) => l.form),
      ['json-escaped'],
    );
    t.match(detector.search('hex', Buffer.from(`ab${value}`).toString('hex')), [{ form: 'hex' }]);
    t.match(detector.search('HEX', Buffer.from(value).toString('hex').toUpperCase()), [{ form: 'HEX' }]);
    for (const prefix of ['', 'a', 'ab', 'abc', 'abcd']) {
      const blob = Buffer.from(`${prefix}${value}tail`).toString('base64');
      t.ok(detector.search('b64', `{"sealed":"${blob}"}`).length > 0, `base64 after ${prefix.length} bytes`);
      const url = blob.replace(/\+/g, '-').replace(/\//g, '_');
      t.ok(detector.search('b64url', url).length > 0, `base64url after ${prefix.length} bytes`);
    }
    t.same(detector.search('clean', 'leak-"quoted"\\-valu3-0042 and nothing else'), []);
  },
);
