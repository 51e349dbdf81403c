import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { McpServersAnswer } from '../../schema/index.js';
import { root } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

t.test(
  'the shipped example company runs its tool server offline: /mcp-servers shows it started',
  async (t) => {
    const node = await startNode(t);
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/yaml',
        'x-summary': 'example',
      },
      body: readFileSync(join(root, 'ops', 'company.example.yaml'), 'utf8'),
    });
    t.equal(put.status, 201, 'the example is accepted');
    const warnings = ((await put.json()) as { warnings: Array<{ kind: string; to?: string }> }).warnings;
    // The example's credentials are ${VAR}s this test leaves unset: each is warned, and nothing else is.
    t.same(
      warnings.filter((w) => w.kind !== 'unresolved_reference'),
      [],
      'without warnings but the unset credentials',
    );
    t.ok(
      warnings.some((w) => w.kind === 'unresolved_reference' && w.to === 'ANTHROPIC_API_KEY'),
      'an unset credential is named',
    );
    await node.run.waitForLog((line) => line.msg === 'tool servers applied');

    const answer = await fetch(`${node.url}/mcp-servers`, { headers: { authorization: `Bearer ${TOKEN}` } });
    t.equal(answer.status, 200);
    const servers = ((await answer.json()) as McpServersAnswer).nodes[0]!.servers;
    t.match(servers, [
      {
        server: 'handbook',
        seat: null,
        transport: 'stdio',
        state: 'started',
        started: true,
        failed: false,
        first_failure: null,
        restarts: 0,
        tools_served: 3,
      },
    ]);
    t.same([...servers[0]!.tools].sort(), ['handbook_read', 'handbook_search', 'handbook_sections']);
    t.notOk(
      node.run.lines.some((line) => line.msg === 'tool server stderr'),
      'the server wrote nothing to stderr (no npm errors)',
    );
    node.run.kill('SIGTERM');
    t.equal(await node.run.exited, 0);
  },
);
