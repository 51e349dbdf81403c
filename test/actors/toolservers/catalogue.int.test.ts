import t from 'tap';
import {
  createToolRouter,
  memoryTools,
  type PersonalMemory,
  type ToolContext,
} from '../../../actors/index.js';
import { ToolEntry } from '../../../schema/index.js';
import { echoServer } from '../../fixtures/mcp/servers.js';
import { startManager } from './harness.js';

const memory: PersonalMemory = {
  remember: async () => undefined,
  recall: async () => [],
  forget: async () => 'unknown',
};
const ctx = (seat: string): ToolContext => ({ seat, agent_id: `id-${seat}` });

t.test(
  'the catalogue and a seat’s tools: builtins first and reserved, MCP tools by server, per-seat tools per seat',
  async (t) => {
    const { manager, logs } = startManager(t);
    const router = createToolRouter({
      builtins: memoryTools({ memory, events: { publish: async () => undefined } }),
      servers: manager,
      logger: logs.logger,
    });
    let changes = 0;
    manager.onToolsChanged(() => changes++);
    await manager.apply({
      name: 'Acme',
      mcp_servers: [
        // Serves `memory_recall` too: the builtin keeps the name.
        echoServer('first', { env: { ECHO_NAME: 'first', ECHO_EXTRA_TOOLS: 'memory_recall,shared_name' } }),
        echoServer('second', { env: { ECHO_NAME: 'second', ECHO_EXTRA_TOOLS: 'shared_name' } }),
        echoServer('mine', { shared: false, tool_prefix: 'my_', env: { ECHO_NAME: 'mine' } }),
      ],
      roles: [{ name: 'Ada', mcp_env: { mine: { ECHO_EXTRA_TOOLS: 'ada_only' } } }, { name: 'Bob' }],
    });
    t.ok(changes > 0, 'listeners hear about new tools');

    const catalogue = router.catalogue();
    for (const entry of catalogue)
      t.ok(ToolEntry.safeParse(entry).success, `${entry.name} (${entry.source}) is an entry`);
    const key = (e: ToolEntry) => `${e.source} ${e.name}`;
    const keys = catalogue.map(key);
    t.same(keys.slice(0, 2), ['builtin memory_remember', 'builtin memory_recall'], 'builtins come first');
    t.notOk(keys.includes('mcp:first memory_recall'), 'a builtin name is reserved');
    t.ok(keys.includes('mcp:first shared_name'));
    t.ok(keys.includes('mcp:second shared_name'), 'the catalogue lists a name once per server');
    t.ok(keys.includes('mcp:mine my_ada_only'), 'a per-seat tool is in the catalogue');
    t.equal(keys.filter((k) => k === 'mcp:mine my_echo').length, 1, 'per-seat instances are listed once');

    const ada = router.toolsFor('ada').map(key);
    const bob = router.toolsFor('bob').map(key);
    t.ok(ada.includes('mcp:first shared_name'), 'the first server in document order wins a name');
    t.notOk(ada.includes('mcp:second shared_name'));
    t.ok(ada.includes('mcp:mine my_ada_only'));
    t.notOk(bob.includes('mcp:mine my_ada_only'), 'another seat’s per-seat tools are not offered');
    t.ok(bob.includes('mcp:mine my_echo'));

    t.match(await router.call(ctx('ada'), { name: 'shared_name', arguments: {} }), {
      content: [{ text: 'extra shared_name' }],
      source: 'mcp:first',
      server: 'first',
    });
    t.match(await router.call(ctx('ada'), { name: 'memory_recall', arguments: {} }), {
      content: [{ text: 'No notes match.' }],
      source: 'builtin',
    });
    t.match(await router.call(ctx('ada'), { name: 'my_echo', arguments: { text: 'hi' } }), {
      content: [{ text: 'mine: hi' }],
      source: 'mcp:mine',
    });
    t.match(await router.call(ctx('bob'), { name: 'my_ada_only', arguments: {} }), {
      is_error: true,
      source: null,
    });
  },
);

t.test(
  'a seat without instances of its own is offered the shared servers’ tools alone, whichever seat read first',
  async (t) => {
    const { manager } = startManager(t);
    await manager.apply({
      name: 'Acme',
      mcp_servers: [
        echoServer('first', { env: { ECHO_NAME: 'first' } }),
        echoServer('mine', { shared: false, tool_prefix: 'my_', env: { ECHO_NAME: 'mine' } }),
      ],
      // Carol is a human seat: no per-seat instance runs for her.
      roles: [{ name: 'Ada' }, { name: 'Carol', kind: 'human', contact: { chat_user_id: 'U-CAROL' } }],
    });
    const names = (seat: string) => manager.toolsFor(seat).map((entry) => entry.name);
    const carolFirst = names('carol');
    const ada = names('ada');
    t.ok(ada.includes('my_echo'), 'a seat is offered its own instance’s tools');
    t.same(carolFirst, ['echo', 'env', 'fail', 'crash'], 'a seat without instances: the shared tools');
    t.same(names('carol'), carolFirst, 'read again after another seat’s list');
    t.same(names('nobody'), carolFirst, 'a seat the document does not name reads the same');
    t.same(names('ada'), ada, 'the seat with its own instance still reads its own list');
  },
);
