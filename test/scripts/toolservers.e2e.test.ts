import t from 'tap';
import type { McpServersAnswer } from '../../schema/index.js';
import { echoServerPath } from '../fixtures/mcp/servers.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { isAlive } from '../harness/proc.js';

const secret = 'shared-secret-value-42';
const seatSecret = 'seat-secret-value-43';

t.test(
  'svc serve runs the tool servers of the applied document, reports them on /mcp-servers and stops them on drain',
  async (t) => {
    const node = await startNode(t);
    const company = {
      name: 'Acme',
      mcp_servers: [
        {
          name: 'echo',
          command: process.execPath,
          args: [echoServerPath],
          env: { ECHO_SECRET: secret },
          tool_prefix: 'e_',
        },
        { name: 'gh', shared: false, command: process.execPath, args: [echoServerPath] },
      ],
      roles: [
        { name: 'Ada', mcp_env: { gh: { GH_TOKEN: seatSecret } } },
        { name: 'Grace', kind: 'human', contact: { chat_user_id: 'U1' } },
      ],
    };
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'tools' },
      body: JSON.stringify(company),
    });
    t.equal(put.status, 201);
    await node.run.waitForLog((line) => line.msg === 'tool servers applied');

    const anonymous = await fetch(`${node.url}/mcp-servers`);
    t.equal(anonymous.status, 401, 'a token is always required');
    t.match(await anonymous.json(), { error: 'invalid_token' });

    const answer = await fetch(`${node.url}/mcp-servers`, { headers: { authorization: `Bearer ${TOKEN}` } });
    t.equal(answer.status, 200);
    const text = await answer.text();
    const body = JSON.parse(text) as McpServersAnswer;
    t.equal(body.nodes.length, 1);
    const servers = body.nodes[0]!.servers;
    t.same(
      servers.map((s) => [s.server, s.seat]),
      [
        ['echo', null],
        ['gh', 'ada'],
      ],
      'no instance for the human seat',
    );
    for (const server of servers)
      t.match(server, { started: true, failed: false, tools_served: 4, first_failure: null, restarts: 0 });
    t.ok(servers[0]!.tools.includes('e_echo'), 'tools are listed with their prefix');
    t.notMatch(text, secret);
    t.notMatch(text, seatSecret);

    const question = await fetch(`${node.url}/query/mcp_servers`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    t.same(
      ((await question.json()) as McpServersAnswer).nodes[0]!.servers.length,
      2,
      'the same answer as a question',
    );

    await node.run.waitForLog(
      (line) => line.msg === 'tool server stderr' && String(line['stderr']).includes('[redacted]'),
    );
    node.run.kill('SIGTERM');
    t.equal(await node.run.exited, 0);
    for (const server of servers) t.notOk(isAlive(server.pid!), `${server.server} stopped with the node`);
    t.notMatch(node.run.stdout(), secret, 'no env value in the logs');
    t.notMatch(node.run.stdout(), seatSecret);
  },
);
