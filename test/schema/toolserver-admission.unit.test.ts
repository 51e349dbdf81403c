/**
 * A18..A20: tool-server entries that can never run as written (a remote's `args`, a NUL in what a process is
 * started with, an env name the child would read otherwise, a URL naming no host) refuse a new write, and a
 * revision an earlier release stored with one still loads, with an `admission` warning.
 */
import t from 'tap';
import {
  baseCompany,
  platform,
  refusedNewStoredLoads,
  summary,
  write,
  type Doc,
} from '../fixtures/company/documents.js';
import { validateCompany } from '../../schema/company/index.js';

const withServers = (...servers: Doc[]): Doc => ({ ...baseCompany(), mcp_servers: servers });

t.test('A18: args on a remote (url) entry are refused; env on one fills its references', async (t) => {
  refusedNewStoredLoads(t, withServers({ name: 'r', url: 'https://mcp.example/mcp', args: ['--x'] }), [
    'mcp_servers[0].args conflict',
  ]);
  t.match(write(withServers({ name: 'r', url: 'https://mcp.example/mcp', args: [] })).problems, [
    { message: /local \(command\) server only/ },
  ]);
  const env = write(
    withServers({
      name: 'r',
      url: 'https://${MCP_HOST}/mcp',
      env: { MCP_HOST: 'mcp.example', TOKEN: '${SECRET}' },
      headers: { Authorization: 'Bearer ${TOKEN}' },
    }),
  );
  t.ok(env.valid, 'env on a remote entry is taken: it fills the url and headers');
  t.ok(write(withServers({ name: 'l', command: 'npx', args: ['-y', 'srv'] })).valid, 'args on a local one');
});

t.test('A19: a NUL in a command, an argument or an env value', async (t) => {
  refusedNewStoredLoads(
    t,
    withServers({ name: 'l', command: 'np\0x', args: ['ok', 'b\0d'], env: { TOKEN: 'a\0b', OK: 'v' } }),
    ['mcp_servers[0].command invalid', 'mcp_servers[0].args[1] invalid', 'mcp_servers[0].env.TOKEN invalid'],
  );
  const problems = write(withServers({ name: 'l', command: 'x', env: { TOKEN: 'sekrit\0tail' } })).problems;
  t.match(problems[0]?.message, /NUL/);
  t.notMatch(JSON.stringify(problems), /sekrit|tail/, 'the value is never quoted');
});

t.test('A19: an env name that is empty or holds = or NUL, at the map, the name never quoted', async (t) => {
  for (const name of ['', 'A=B', 'A\0B']) {
    const doc = withServers({ name: 'l', command: 'x', env: { [name]: 'v', OK: 'w' } });
    refusedNewStoredLoads(t, doc, ['mcp_servers[0].env invalid']);
    t.match(write(doc).problems[0]?.message, /env name/);
  }
  // The same names in a seat's or a unit's mcp_env reach a per-seat process's env.
  const doc = withServers({ name: 'gh', command: 'x', shared: false });
  doc['roles'][0]['mcp_env'] = { gh: { 'GH=TOKEN': 'v' } };
  platform(doc)['mcp_env'] = { gh: { '': 'v' } };
  refusedNewStoredLoads(t, doc, ['roles[0].mcp_env.gh invalid', 'units[0].children[0].mcp_env.gh invalid']);
  doc['roles'][0]['mcp_env'] = { gh: { GH_TOKEN: 'a\0b' } };
  platform(doc)['mcp_env'] = { gh: { GH_TOKEN: 'v' } };
  refusedNewStoredLoads(t, doc, ['roles[0].mcp_env.gh.GH_TOKEN invalid']);
});

t.test('A19 ratchets an env name by name: the map’s other entries may change', async (t) => {
  const stored = withServers({ name: 'l', command: 'x', env: { 'A=B': 'v', OK: 'w' } });
  const active = { document: stored, problems: write(stored).problems };
  const edit = withServers({ name: 'l', command: 'x', env: { 'A=B': 'v', OK: 'changed', NEW: 'n' } });
  const kept = validateCompany(edit, { mode: 'write', active });
  t.ok(kept.valid, 'an edit of another entry keeps the stored name');
  t.match(kept.warnings, [{ kind: 'admission', path: 'mcp_servers[0].env' }]);
  const added = withServers({ name: 'l', command: 'x', env: { 'A=B': 'v', 'C=D': 'w' } });
  t.same(summary(validateCompany(added, { mode: 'write', active })), ['mcp_servers[0].env invalid']);
});

t.test('A20: a remote url naming no host', async (t) => {
  for (const url of ['http:///mcp', 'https:///${MCP_PATH}', 'HTTP:////mcp']) {
    const doc = withServers({ name: 'r', url });
    refusedNewStoredLoads(t, doc, ['mcp_servers[0].url invalid']);
    t.match(write(doc).problems[0]?.message, /no host/);
  }
  for (const url of [
    'http://mcp.example/mcp',
    'http://${MCP_HOST}/mcp',
    '${MCP_URL}',
    'http://127.0.0.1:9/',
  ]) {
    t.ok(write(withServers({ name: 'r', url })).valid, url);
  }
});
