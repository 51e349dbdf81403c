/**
 * An integration pass's base URL once its `${VAR}` references are resolved: one left with no host
 * (`http://${SITE_HOST}/api` with SITE_HOST unset becomes `http:///api`, read by URL parsers as host `api`)
 * fails the pass as no http(s) URL, instead of calling a host named after its first path segment.
 */
import t from 'tap';
import { baseUrl, VendorError } from '../../../actors/integration/vendors/vendor-http.js';

t.test('a base URL left with no host fails the pass as no http(s) URL', async (t) => {
  for (const value of ['http:///api', 'https:///', 'HTTP:////api']) {
    t.throws(
      () => baseUrl('tracker-b', value),
      new VendorError('tracker-b: the base URL is not an http(s) URL'),
      value,
    );
  }
  t.throws(() => baseUrl('tracker-b', ''), { message: 'tracker-b: the base URL is not set' });
  t.equal(baseUrl('tracker-b', ' https://site.example/api/ '), 'https://site.example/api');
  t.equal(baseUrl('tracker-b', 'http://127.0.0.1:9'), 'http://127.0.0.1:9');
});
