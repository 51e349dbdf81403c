import t from 'tap';
import { isSecretPath } from '../../schema/company/index.js';
import { redact } from '../../schema/document/index.js';
import { onlyReferences } from '../../schema/env-refs.js';

const masked = { encrypted: true, key_id: null };

t.test('a value of references only, after an auth scheme at most, carries no literal secret', async (t) => {
  for (const text of ['${A}', 'Bearer ${MCP_TOKEN}', 'bearer  ${A}', 'Basic ${B64}', '${A}${B}', ' ${A} '])
    t.ok(onlyReferences(text), text);
  for (const text of [
    '',
    'Bearer',
    'Bearer abc',
    'ghp_${X}',
    '${A}:${B}',
    'Bearer ${A} x',
    '$A',
    'Bearer${A}x',
  ])
    t.notOk(onlyReferences(text), text);
});

t.test(
  'GET /config redaction keeps a tool server header that only references a secret visible',
  async (t) => {
    const doc = {
      mcp_servers: [
        {
          name: 'remote',
          url: 'https://mcp.example/mcp',
          headers: {
            Authorization: 'Bearer ${MCP_TOKEN}',
            'X-Api-Key': '${MCP_KEY}',
            'X-Auth-Token': 'Bearer literal-token-123',
            'X-Trace': 'abc',
          },
          env: { GH_TOKEN: 'ghp_${REST}', API_KEY: '${API_KEY}' },
        },
      ],
    };
    t.same(redact(doc, isSecretPath), {
      mcp_servers: [
        {
          name: 'remote',
          url: 'https://mcp.example/mcp',
          headers: {
            Authorization: 'Bearer ${MCP_TOKEN}',
            'X-Api-Key': '${MCP_KEY}',
            'X-Auth-Token': masked,
            'X-Trace': 'abc',
          },
          env: { GH_TOKEN: masked, API_KEY: '${API_KEY}' },
        },
      ],
    });
  },
);
