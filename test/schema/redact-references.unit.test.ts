import t from 'tap';
import { isSecretPath } from '../../schema/company/index.js';
import { redact, restoreMasks } from '../../schema/document/index.js';
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

t.test(
  'a URL anywhere reads with its password (or a user written alone) masked, a reference visible',
  async (t) => {
    const doc = {
      providers: {
        llm: { local: { type: 'openai-compatible', model: 'm', base_url: 'https://u:pw@llm.example/v1' } },
      },
      integrations: { wiki: { url: 'https://ghp_tok3n@wiki.example' } },
      mission: 'see https://docs.example/a and write to ops@acme.example',
      skill_variables: {
        a: 'https://u:${PW}@h.example',
        b: 'https://${TOKEN}@h.example',
        c: 'https://h.example',
      },
    };
    const shown = redact(doc, isSecretPath) as typeof doc;
    t.equal(shown.providers.llm.local.base_url, 'https://u:***@llm.example/v1');
    t.equal(shown.integrations.wiki.url, 'https://***@wiki.example');
    t.same(shown.skill_variables, doc.skill_variables, 'references and plain URLs stay as written');
    t.equal(shown.mission, doc.mission, 'an address that is no login stays');
    t.notMatch(JSON.stringify(shown), /pw@|tok3n/);

    const back = restoreMasks(shown, doc, isSecretPath);
    t.same(back, { document: doc, problems: [] }, 'a masked URL sent back is the stored one');
    const moved = structuredClone(shown);
    moved.providers.llm.local.base_url = 'https://u:***@other.example/v1';
    t.match(restoreMasks(moved, doc, isSecretPath).problems, [
      { path: 'providers.llm.local.base_url', message: /no stored URL/ },
    ]);
    t.notMatch(JSON.stringify(restoreMasks(moved, doc, isSecretPath).problems), /pw/);
  },
);

t.test(
  'a credential in a URL query (private_token, access_token, api_key, token, key, sig, password, secret) reads as ***',
  async (t) => {
    const doc = {
      integrations: {
        codehost_b: { url: 'https://git.example/api?private_token=glpat-c4n4ry1&per_page=50' },
        wiki: { url: 'https://wiki.example/x?ACCESS_TOKEN=c4n4ry2#frag' },
      },
      mcp_servers: [
        { name: 'a', url: 'https://mcp.example/mcp?Api_Key=c4n4ry3' },
        { name: 'b', url: 'https://mcp.example/mcp?token=${MCP_TOKEN}&key=c4n4ry4' },
      ],
      mission:
        'see https://blob.example/f?sv=2024&sig=c4n4ry5 and https://h.example/?signature=c4n4ry6&password=c4n4ry7&secret=c4n4ry8',
      skill_variables: {
        a: 'https://h.example/?q=search&page=2',
        b: 'https://h.example/?api_key=${KEY}',
        c: 'https://h.example/?token=',
        d: 'token=c4n4ry9 is no URL',
      },
    };
    const shown = redact(doc, isSecretPath) as typeof doc;
    t.equal(shown.integrations.codehost_b.url, 'https://git.example/api?private_token=***&per_page=50');
    t.equal(shown.integrations.wiki.url, 'https://wiki.example/x?ACCESS_TOKEN=***#frag');
    t.equal(shown.mcp_servers[0]!.url, 'https://mcp.example/mcp?Api_Key=***');
    t.equal(
      shown.mcp_servers[1]!.url,
      'https://mcp.example/mcp?token=${MCP_TOKEN}&key=***',
      'a reference stays',
    );
    t.equal(
      shown.mission,
      'see https://blob.example/f?sv=2024&sig=*** and https://h.example/?signature=***&password=***&secret=***',
    );
    t.same(shown.skill_variables, doc.skill_variables, 'other parameters, references and prose stay');
    t.notMatch(JSON.stringify(shown), /c4n4ry[1-8]/);

    const back = restoreMasks(shown, doc, isSecretPath);
    t.same(back, { document: doc, problems: [] }, 'a masked URL sent back is the stored one');

    const edited = structuredClone(shown);
    edited.integrations.codehost_b.url = 'https://git.example/api?private_token=glpat-new&per_page=50';
    const replaced = restoreMasks(edited, doc, isSecretPath);
    t.same(replaced.problems, []);
    t.equal(
      (replaced.document as typeof doc).integrations.codehost_b.url,
      'https://git.example/api?private_token=glpat-new&per_page=50',
      'a new value replaces the stored one',
    );

    const moved = structuredClone(shown);
    moved.mcp_servers[0]!.url = 'https://other.example/mcp?Api_Key=***';
    const refused = restoreMasks(moved, doc, isSecretPath);
    t.match(refused.problems, [{ path: 'mcp_servers[0].url', message: /no stored URL/ }]);
    t.notMatch(JSON.stringify(refused.problems), /c4n4ry/);
  },
);
