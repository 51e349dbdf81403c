// Company rules for llm providers and tool servers: what a seat names, types, headers, prefixes, names.
import t from 'tap';
import { baseCompany, summary, write } from '../fixtures/company/documents.js';

t.test('a seat llm and every llm_order entry name existing providers', async (t) => {
  const doc = baseCompany();
  doc['roles'][0]['llm'] = 'gpt';
  doc['providers']['llm_order'] = ['main', 'backup', 'main'];
  t.same(summary(write(doc)).sort(), [
    'providers.llm_order[1] unknown_value',
    'providers.llm_order[2] conflict',
    'roles[0].llm unknown_value',
  ]);
});

t.test('llm providers: type closed set, openai-compatible needs base_url, keys are route-safe', async (t) => {
  const doc = baseCompany();
  doc['providers']['llm']['local'] = { type: 'openai-compatible', model: 'm' };
  doc['providers']['llm']['bad key'] = { type: 'openai', model: 'm' };
  t.same(summary(write(doc)).sort(), [
    'providers.llm.bad key invalid',
    'providers.llm.local.base_url missing',
  ]);
  doc['providers']['llm']['local']['base_url'] = 'not a url';
  t.same(summary(write(doc)).sort(), [
    'providers.llm.bad key invalid',
    'providers.llm.local.base_url invalid',
  ]);
});

t.test('tool servers: header names are HTTP tokens, values hold no line break', async (t) => {
  const doc = baseCompany();
  doc['mcp_servers'] = [
    { name: 'a', url: 'https://mcp.example/a', headers: { 'Bad Header:': 'x' } },
    { name: 'b', url: 'https://mcp.example/b', headers: { '': 'x' } },
    { name: 'c', url: 'https://mcp.example/c', headers: { 'X-Token': 'one\r\nInjected: two' } },
    { name: 'd', url: 'https://mcp.example/d', headers: { Authorization: 'Bearer ${D_TOKEN}' } },
  ];
  t.same(summary(write(doc)).sort(), [
    'mcp_servers[0].headers.Bad Header: invalid',
    'mcp_servers[1].headers. invalid',
    'mcp_servers[2].headers.X-Token invalid',
  ]);
});

t.test(
  'tool servers: a remote url carries no login (fetch refuses it; headers carry credentials)',
  async (t) => {
    const doc = baseCompany();
    doc['mcp_servers'] = [
      { name: 'a', url: 'https://user:s3cret@mcp.example/a' },
      { name: 'b', url: 'https://mcp.example/b?x=1' },
    ];
    const result = write(doc);
    t.same(summary(result), ['mcp_servers[0].url invalid']);
    t.notMatch(JSON.stringify(result.problems), /s3cret/, 'the password is never quoted');
  },
);

t.test('tool servers: a tool_prefix is at most 32 characters usable in a function name', async (t) => {
  const doc = baseCompany();
  doc['mcp_servers'] = [
    { name: 'a', command: 'x', tool_prefix: 'a b/c! ' },
    { name: 'b', command: 'x', tool_prefix: 'p'.repeat(71) },
    { name: 'c', command: 'x', tool_prefix: 'gh_' },
    { name: 'd', command: 'x', tool_prefix: '' },
  ];
  t.same(summary(write(doc)).sort(), [
    'mcp_servers[0].tool_prefix invalid',
    'mcp_servers[1].tool_prefix invalid',
  ]);
});

t.test('tool servers: unique names, command or url', async (t) => {
  const doc = baseCompany();
  doc['mcp_servers'] = [
    { name: 'docs', command: 'npx', args: ['docs'] },
    { name: 'docs', url: 'https://mcp.example/docs', headers: { Authorization: '${DOCS_AUTH}' } },
    { name: 'both', command: 'x', url: 'https://x.example' },
    { name: 'neither' },
  ];
  t.same(summary(write(doc)).sort(), [
    'mcp_servers[1].name conflict',
    'mcp_servers[2].url conflict',
    'mcp_servers[3].command missing',
  ]);
});
