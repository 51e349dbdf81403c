/**
 * Tools with an output schema (ops/tool-servers.md "Tools"): a tool's structured content is checked against
 * its schema when it is called, and a schema no validator can compile is that tool's problem alone — the
 * server starts and serves its other tools.
 */
import t from 'tap';
import { echoServer } from '../../fixtures/mcp/servers.js';
import { startManager } from './harness.js';

const outputServer = () => echoServer('out', { env: { ECHO_NAME: 'out', ECHO_OUTPUT_TOOLS: '1' } });

t.test(
  'a tool whose output schema cannot be compiled does not stop its server from starting; a call to it answers a tool error',
  async (t) => {
    const { manager } = startManager(t, { backoffBaseMs: 60_000, backoffCapMs: 60_000 });
    await manager.apply({ name: 'Acme', mcp_servers: [outputServer()] });
    t.match(manager.status()[0], { state: 'started', failed: false, first_failure: null });
    const echo = await manager.callTool('ada', 'echo', { text: 'hi' });
    t.match(echo, { is_error: false, content: [{ text: 'out: hi' }] }, 'the other tools answer');
    const bad = await manager.callTool('ada', 'unresolvable', { a: 1 });
    t.equal(bad.is_error, true);
    t.match(
      bad.content[0]?.text,
      /^tool unresolvable on out failed: .*can't resolve reference #\/definitions\/missing/,
    );
    t.match(manager.status()[0], { state: 'started' }, 'and the server keeps running');
  },
);

t.test('structured content is checked against the tool output schema when the tool is called', async (t) => {
  const { manager } = startManager(t);
  await manager.apply({ name: 'Acme', mcp_servers: [outputServer()] });
  const good = await manager.callTool('ada', 'shaped', { count: 3 });
  t.match(good, { is_error: false, content: [{ text: '{"count":3}' }] });
  const bad = await manager.callTool('ada', 'shaped', { count: 'three' });
  t.equal(bad.is_error, true);
  t.match(bad.content[0]?.text, /does not match the tool's output schema/);
});
