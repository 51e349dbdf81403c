import t from 'tap';
import { echoServer } from '../../fixtures/mcp/servers.js';
import { startManager, type LogLine } from './harness.js';

const text = (result: { content: Array<{ text: string }> }): string =>
  result.content.map((p) => p.text).join('');
const wrote = (pattern: RegExp) => (l: LogLine) =>
  l.msg === 'tool server stderr' &&
  String(l['stderr'])
    .split('\n')
    .some((line) => pattern.test(line));

t.test(
  'a call the server does not answer within the call timeout is a tool error saying so; the server stays up',
  async (t) => {
    const { manager, logs } = startManager(t, { callTimeoutMs: 1500 });
    await manager.apply({
      name: 'Acme',
      mcp_servers: [
        echoServer('files', {
          env: { ECHO_NAME: 'files', ECHO_HANG_TOOLS: 'stall', ECHO_GARBLED_TOOLS: 'garble' },
          tool_prefix: 'files_',
        }),
      ],
      roles: [{ name: 'Ada' }],
    });

    const slow = await manager.callTool('ada', 'files_stall', {});
    t.equal(slow.is_error, true);
    t.equal(text(slow), 'tool stall on files failed: the tool server did not answer within 1.5 s');
    await logs.waitFor(wrote(/^call \d+ cancelled: /), 10_000);

    const garbled = await manager.callTool('ada', 'files_garble', {});
    t.equal(
      text(garbled),
      'tool garble on files failed: the tool server did not answer within 1.5 s; it wrote 1 line on stdout ' +
        'that is not an MCP message since the call was sent (JSON but no JSON-RPC message)',
      'a malformed answer is dropped: the call still waits, and its error says what came instead',
    );

    const [status] = manager.status();
    t.match(
      status,
      { state: 'started', failed: false, restarts: 0, last_failure: null },
      'not a failure of it',
    );
    t.equal(text(await manager.callTool('ada', 'files_echo', { text: 'hi' })), 'files: hi');
  },
);
