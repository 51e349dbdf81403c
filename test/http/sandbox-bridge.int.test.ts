/**
 * The tool bridge (`/mcp/{token}`) lives no longer than its run: a seat tool the coding agent called
 * through it and that still runs when the run ends is cancelled with the run (the tool server is told),
 * and the bridge answers the call at once with an error result naming the end. A call whose params do
 * not fit is the caller's error (JSON-RPC -32602), not the bridge's (-32603); each JSON-RPC error has
 * its own code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { launchBobHolding, startSandboxCompany } from '../actors/sandbox/harness.js';
import { captureLogs } from '../actors/toolservers/harness.js';
import { jsonRpcCases } from './fixtures/jsonrpc-cases.js';

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

t.test('a tool call whose arguments are not an object is answered invalid params (-32602)', async (t) => {
  const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
  const run = await launchBobHolding(h, 'sb-params', 'e');
  const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
  const mcpUrl = environ.find((e) => e.startsWith('SVC_MCP_URL='))!.slice('SVC_MCP_URL='.length);
  const call = async (body: unknown) => {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
    t.equal(res.status, 200);
    return res.json();
  };
  const toolCall = (id: number, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

  for (const [args, got] of [
    ['a string', 'string'],
    [[1, 2], 'array'],
    [5, 'number'],
  ] as const) {
    t.match(
      await call(toolCall(1, { name: 'files_echo', arguments: args })),
      {
        id: 1,
        error: {
          code: -32602,
          message: `Invalid params for tools/call: params.arguments: expected an object, received ${got}`,
        },
      },
      `arguments given as ${got}`,
    );
  }
  t.match(
    await call(toolCall(2, { arguments: {} })),
    { id: 2, error: { code: -32602, message: /params\.name: expected string/ } },
    'no tool name',
  );
  // In a batch, only the call that does not fit is refused.
  t.match(
    await call([
      toolCall(3, { name: 'files_echo', arguments: 'x' }),
      toolCall(4, { name: 'files_echo', arguments: { text: 'hi' } }),
    ]),
    [
      { id: 3, error: { code: -32602 } },
      { id: 4, result: { isError: false } },
    ],
  );
  // A name the seat is not offered is the caller's text of any length: quoted cut at 100 characters.
  const long = 'x'.repeat(100_000);
  const notOffered = (await call(toolCall(6, { name: long, arguments: {} }))) as {
    result: { isError: boolean; content: Array<{ text: string }> };
  };
  t.equal(notOffered.result.isError, true, 'a tool the seat is not offered is refused');
  t.equal(notOffered.result.content[0]!.text, `no tool named ${'x'.repeat(100)}`, 'its long name quoted cut');
  const fine = await call(toolCall(5, { name: 'files_echo', arguments: { text: 'hi' } }));
  t.match(fine, { id: 5, result: { isError: false } }, 'a call that fits goes through');
  t.notOk(JSON.stringify(fine).includes('-32603'));

  writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
  await h.waitRun((r) => r.sandbox_id === 'sb-params' && r.status === 'done');
});

t.test('the bridge answers each JSON-RPC error with its code', async (t) => {
  const h = await startSandboxCompany(t, { script: [], env: { FAKE_HOLD: '1' } });
  const run = await launchBobHolding(h, 'sb-rpc', 'g');
  const environ = readFileSync(`/proc/${run.pid!}/environ`, 'utf8').split('\0');
  const mcpUrl = environ.find((e) => e.startsWith('SVC_MCP_URL='))!.slice('SVC_MCP_URL='.length);
  const post = (body: string) =>
    fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
  await jsonRpcCases(t, post, { name: 'files_echo', args: { text: 'hi' } });
  writeFileSync(join(run.workdir!, '..', 'control', 'release'), '');
  await h.waitRun((r) => r.sandbox_id === 'sb-rpc' && r.status === 'done');
});
