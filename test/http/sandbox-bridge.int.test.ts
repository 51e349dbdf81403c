/**
 * The tool bridge (`/mcp/{token}`) lives no longer than its run: a seat tool the coding agent called
 * through it and that still runs when the run ends is cancelled with the run (the tool server is told),
 * and the bridge answers the call at once with an error result naming the end.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { launchBobHolding, startSandboxCompany } from '../actors/sandbox/harness.js';
import { captureLogs } from '../actors/toolservers/harness.js';

const OPS = 'ops-token-0123456789';

t.test('a bridge tool call still running when its run is cancelled is cancelled with it', async (t) => {
  const logs = captureLogs();
  const h = await startSandboxCompany(t, {
    script: [],
    env: { FAKE_HOLD: '1' },
    toolEnv: { ECHO_HANG_TOOLS: 'hang' },
    logs,
  });
  const run = await launchBobHolding(h, 'sb-bridge', 'd');
  const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
  const mcpUrl = environ.find((e) => e.startsWith('SVC_MCP_URL='))!.slice('SVC_MCP_URL='.length);
  const line = (text: RegExp) => (l: unknown) => text.test(JSON.stringify(l));

  const pending = fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'files_hang', arguments: {} },
    }),
  });
  await logs.waitFor(line(/call \d+ waits/));

  const cancel = await fetch(`${h.base}/sandbox-runs/sb-bridge/cancel`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPS}` },
  });
  t.equal(cancel.status, 200);
  await logs.waitFor(line(/call \d+ cancelled/), 10_000);
  const answer = await pending;
  t.equal(answer.status, 200);
  t.match(await answer.json(), {
    id: 7,
    result: { isError: true, content: [{ text: /coding run sb-bridge ended cancelled/ }] },
  });
});
