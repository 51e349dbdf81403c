/**
 * A path token is a run's credential: no answer quotes it. The refusals the gateway decides from the path
 * alone (404 `no_route` for an unknown signal or a trailing slash, 405 `method_not_allowed` for GET, PUT,
 * PATCH) name the path with `[token]` in its place, as the request log does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { launchBobHolding, startSandboxCompany } from '../actors/sandbox/harness.js';

t.test('no refusal of a token route quotes the token it was asked with', async (t) => {
  const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
  const run = await launchBobHolding(h, 'sb-unquoted', 'a');
  const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
  const token = environ.find((e) => e.startsWith('SVC_MCP_URL='))!.split('/mcp/')[1]!;
  t.equal(token.length, 43);
  const json = { 'content-type': 'application/json' };
  const asks: Array<[string, string, number, string]> = [
    ['POST', `/otlp/${token}/v1/profiles`, 404, 'no_route'],
    ['POST', `/otlp/${token}/v1/traces/`, 404, 'no_route'],
    ['POST', `/otlp/${token}`, 404, 'no_route'],
    ['GET', `/otlp/${token}/v1/traces`, 405, 'method_not_allowed'],
    ['GET', `/mcp/${token}`, 405, 'method_not_allowed'],
    ['PUT', `/mcp/${token}`, 405, 'method_not_allowed'],
    ['PATCH', `/mcp/${token}`, 405, 'method_not_allowed'],
    ['POST', `/mcp/${token}/`, 404, 'no_route'],
  ];
  for (const [method, path, status, code] of asks) {
    const res = await fetch(`${h.base}${path}`, {
      method,
      headers: json,
      ...(method === 'GET' ? {} : { body: '{}' }),
    });
    const text = await res.text();
    t.equal(res.status, status, `${method} ${path.replace(token, '<token>')}: ${status}`);
    t.match(JSON.parse(text), { error: code, detail: /\[token\]/ }, `${code}, the path shown with [token]`);
    t.notOk(text.includes(token), `${method} ${path.replace(token, '<token>')}: the token is not quoted`);
  }
  writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
  await h.waitRun((r) => r.sandbox_id === 'sb-unquoted' && r.status === 'done');
});
