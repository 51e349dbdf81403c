/**
 * A call routes to the tools a server serves now: the name-to-server routes are kept between calls, and
 * every change of a served list — a server's `tools/list_changed`, a renaming apply, a failure and its
 * restart, a stop — is seen by the next call and the next listing, never an earlier list.
 */
import t from 'tap';
import type { ToolServerManager } from '../../../actors/index.js';
import { echoServer } from '../../fixtures/mcp/servers.js';
import { doc } from './company.fixture.js';
import { startManager } from './harness.js';

const company = (prefix: string | null) =>
  doc({
    mcp_servers:
      prefix === null
        ? []
        : [echoServer('files', { tool_prefix: prefix, env: { ECHO_NAME: 'files', ECHO_SWAP_TOOLS: '1' } })],
    roles: [{ name: 'Ada' }],
    units: [],
  });

/**
 * Resolves once `holds` is true, checked now and at every change of the served tools (no polling);
 * rejects when 30 s pass without it (a listing that kept an earlier list would wait forever).
 */
const until = (manager: ToolServerManager, holds: () => boolean): Promise<void> =>
  new Promise((resolve, reject) => {
    if (holds()) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error('the served tools never came to hold'));
    }, 30_000);
    const off = manager.onToolsChanged(() => {
      if (!holds()) return;
      off();
      clearTimeout(timer);
      resolve();
    });
  });

const offered = (manager: ToolServerManager, name: string): boolean =>
  manager.toolsFor('ada').some((entry) => entry.name === name);

const text = async (manager: ToolServerManager, name: string, args: Record<string, unknown> = {}) => {
  const result = await manager.callTool('ada', name, args);
  return { text: result.content[0]?.text ?? '', error: result.is_error === true };
};

t.test('a call after a change of the served tools routes to the tools served now', async (t) => {
  const { manager } = startManager(t);
  await manager.apply(company('f_'));
  t.match(await text(manager, 'f_echo', { text: 'hi' }), { text: 'files: hi', error: false });
  t.match(await text(manager, 'f_first'), { text: /no tool named f_first/, error: true }, 'not served yet');

  await text(manager, 'f_swap', { name: 'first' });
  await until(manager, () => offered(manager, 'f_first'));
  t.match(
    await text(manager, 'f_first'),
    { text: 'swapped in first', error: false },
    'a tool the list change added is routed',
  );

  await text(manager, 'f_swap', { name: 'second' });
  await until(manager, () => offered(manager, 'f_second'));
  t.notOk(offered(manager, 'f_first'), 'the replaced tool is no longer offered');
  t.match(await text(manager, 'f_first'), { text: /no tool named f_first/, error: true }, 'nor routed');
  t.match(await text(manager, 'f_second'), { text: 'swapped in second', error: false });

  const renamed = await manager.apply(company('g_'));
  t.same(renamed.renamed, ['files'], 'a new prefix renames without a restart');
  t.match(
    await text(manager, 'g_second'),
    { text: 'swapped in second', error: false },
    'the new name routes',
  );
  t.match(
    await text(manager, 'f_second'),
    { text: /no tool named f_second/, error: true },
    'the old one not',
  );

  // A failure hides the tools until the restart, which serves the fresh process's list.
  await text(manager, 'g_crash');
  await until(manager, () => !offered(manager, 'g_echo'));
  t.match(await text(manager, 'g_echo', { text: 'x' }), { error: true }, 'no route while it restarts');
  await until(manager, () => offered(manager, 'g_echo'));
  t.match(await text(manager, 'g_echo', { text: 'back' }), { text: 'files: back', error: false });
  t.match(
    await text(manager, 'g_second'),
    { text: /no tool named g_second/, error: true },
    'the restarted server serves its own list',
  );

  await manager.apply(company(null));
  t.match(await text(manager, 'g_echo', { text: 'x' }), { text: /no tool named g_echo/, error: true });
  t.same(manager.toolsFor('ada'), [], 'a stopped server routes nothing');
});
