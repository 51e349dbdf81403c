import t from 'tap';
import { echoServerPath } from '../../fixtures/mcp/servers.js';
import { startManager } from './harness.js';

// A secret store value is arbitrary bytes: one holding a NUL cannot reach a process's env or argv.
const secret = 'sekrit-token\0value';

t.test(
  'a command, argument or env value holding a NUL once resolved is named in the failure, never quoted',
  async (t) => {
    const { manager, logs } = startManager(t, {
      resolve: (name) => (name === 'TOK' ? secret : undefined),
      backoffBaseMs: 5_000,
      backoffCapMs: 5_000,
    });
    await manager.apply({
      name: 'Acme',
      mcp_servers: [
        { name: 'env', command: process.execPath, args: [echoServerPath], env: { API_TOKEN: '${TOK}' } },
        { name: 'args', command: process.execPath, args: [echoServerPath, '--token=${TOK}'] },
        { name: 'cmd', command: '${TOK}' },
      ],
    });
    const failures = Object.fromEntries(manager.status().map((s) => [s.server, s.last_failure?.error]));
    t.same(failures, {
      env: 'env "API_TOKEN" holds a NUL character once its ${VAR} references are resolved',
      args: 'args[1] holds a NUL character once its ${VAR} references are resolved',
      cmd: 'command holds a NUL character once its ${VAR} references are resolved',
    });
    for (const s of manager.status()) t.match(s, { state: 'backoff', failed: true });
    const logged = logs.raw();
    t.notMatch(logged, 'sekrit', 'the logs show no part of the value');
    t.notMatch(logged, 'value', 'nor its tail');
  },
);
