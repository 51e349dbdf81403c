/**
 * Tool-server entries that can never run as written (admission rules A18..A20): `args` on a remote entry, a NUL
 * in a command, an argument or an env value, an env name that is empty or holds `=`, a url naming no host. A
 * `PUT /config/mcp-servers/{name}` bringing one is 400 `validation_error` naming the field, nothing stored; a
 * revision an earlier release stored with them still boots and applies, and an edit elsewhere goes through.
 * Against a built `svc serve`.
 */
import t from 'tap';
import { company, type Json } from './fixtures/config-node.js';
import { bootOnEarlierRevision } from './fixtures/earlier-stored.js';

interface Problem {
  path: string;
  kind: string;
  message: string;
}

/** The earlier release's entries, each breaking one rule; nothing listens on 127.0.0.1:9. */
const stored = [
  { name: 'remote', url: 'http://127.0.0.1:9/mcp', args: ['--verbose'] },
  { name: 'nul', command: 'np\0x' },
  { name: 'named', command: process.execPath, args: ['-e', '0'], env: { 'A=B': 'v' } },
  { name: 'nohost', url: 'http:///mcp' },
];

t.test(
  'a tool-server entry that cannot run is refused naming its field; a stored one still boots and applies',
  async (t) => {
    const doc = company();
    const node = await bootOnEarlierRevision(t, {
      ...doc,
      mcp_servers: [...(doc['mcp_servers'] as Json[]), ...stored],
    });
    await node.run.waitForLog((l) => l.msg === 'config applied');
    const health = (await (await node.call('GET', '/health')).json()) as Json;
    t.match(health, { configured: true, applied_epoch: 2 }, 'the stored revision is applied');
    const servers = JSON.stringify(await (await node.call('GET', '/mcp-servers')).json());
    t.match(servers, 'url is not a valid URL once its ${VAR} references are resolved', 'no host is no URL');

    const put = (body: Json, path: string, headers: Record<string, string> = {}): Promise<Response> =>
      node.call('PUT', path, {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', 'x-summary': 'entry', ...headers },
      });
    const entity = await put({ name: 'Chief Agent', goal: 'Run it well.' }, '/config/roles/chief-agent');
    t.equal(entity.status, 201, 'an edit of another entity is not refused for what it did not bring');
    const warned = ((await entity.json()) as { warnings: Problem[] }).warnings
      .filter((w) => w.kind === 'admission')
      .map((w) => w.path);
    t.same(warned.sort(), [
      'mcp_servers[1].args',
      'mcp_servers[2].command',
      'mcp_servers[3].env',
      'mcp_servers[4].url',
    ]);

    const cases: Array<[Json, string, string, RegExp]> = [
      [
        { url: 'https://mcp.example/mcp', args: ['--x'] },
        'args',
        'conflict',
        /local \(command\) server only/,
      ],
      [{ command: 'npx\0c4n4ry' }, 'command', 'invalid', /NUL/],
      [{ command: 'npx', args: ['ok', 'b\0d'] }, 'args[1]', 'invalid', /NUL/],
      [{ command: 'npx', env: { TOKEN: 'c4n4ry\0c4n4ry' } }, 'env.TOKEN', 'invalid', /NUL/],
      [{ command: 'npx', env: { 'A=B': 'v' } }, 'env', 'invalid', /env name/],
      [{ command: 'npx', env: { '': 'v' } }, 'env', 'invalid', /env name/],
      [{ url: 'http:///mcp' }, 'url', 'invalid', /no host/],
    ];
    for (const [entry, field, kind, message] of cases) {
      const res = await put({ name: 'fresh', ...entry }, '/config/mcp-servers/fresh', {
        'if-none-match': '*',
      });
      const label = `${JSON.stringify(entry)} at ${field}`;
      t.equal(res.status, 400, label);
      const body = (await res.json()) as Json;
      t.equal(body['error'], 'validation_error', label);
      const problems = body['problems'] as Problem[];
      t.same(
        problems.map((p) => [p.path, p.kind]),
        [[`mcp_servers[5].${field}`, kind]],
        label,
      );
      t.match(problems[0]?.message, message, label);
      t.notMatch(JSON.stringify(body), /c4n4ry/, 'no value is quoted');
    }
    const missing = await node.call('GET', '/config/mcp-servers/fresh');
    t.equal(missing.status, 404, 'nothing stored');
    t.equal(await node.stop(), 0);
  },
);
