/**
 * The skills sync's log lines about a vendor source show a document value written as a `${VAR}` as the
 * reference, never the value it resolved to (ops/secrets.md "Credentials in URLs, and what logs show"):
 * a tracker-b workspace, a wiki's cloud id and a wiki URL's path, each resolved from the secret store, are
 * planted as canaries and the captured log output is searched for them.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createServer, type RequestListener } from 'node:http';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { openMemoryBus } from '../../bus/index.js';
import { startSkills } from '../../scripts/skills-wiring.js';

const CANARY = 'c4n4ry-ws-7f3a';

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { text: () => text, logger: pino({ level: 'debug' }, stream) };
}

async function serve(t: Test, handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Runs one sync of `integrations` with `${VAR}`s resolving to `values`; the captured log text. */
async function syncOnce(
  t: Test,
  integrations: Record<string, unknown>,
  values: Record<string, string>,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const bus = await openMemoryBus();
  t.teardown(() => bus.close());
  const log = capture();
  const skills = await startSkills({
    bus,
    logger: log.logger,
    chart: () => ({ document: { name: 'Acme', integrations }, epoch: 1 }),
    pages: () => null,
    resolve: (name) => values[name],
    epoch: () => 1,
    env,
  });
  t.teardown(() => skills.stop());
  await skills.sync.syncNow();
  return log.text();
}

t.test(
  'skills_sync_failed shows a tracker-b workspace as its ${VAR}, whether the project is missing or the path refused',
  async (t) => {
    let projects = 200;
    const url = await serve(t, (_req, res) => {
      if (projects === 200)
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: [] }));
      else res.writeHead(projects).end();
    });
    const integrations = { tracker_b: { url, token: '${TB_TOKEN}', workspace: '${TB_WS}' } };
    const values = { TB_TOKEN: 'tb-token-1', TB_WS: CANARY };
    const env = { SVC_TOOL_SKILLS_SPACE: '', SVC_TOOL_SKILLS_PROJECT: 'TS' };
    for (const status of [200, 404]) {
      projects = status;
      const text = await syncOnce(t, integrations, values, env);
      t.match(text, /skills_sync_failed/, `${status}: the failure is logged`);
      t.notMatch(text, new RegExp(CANARY), `${status}: the resolved workspace is in no line`);
      t.match(text, /\$\{TB_WS\}/, `${status}: the line shows the reference`);
    }
  },
);

t.test('skills_sync_failed shows a wiki cloud id and a URL path written as ${VAR}s as written', async (t) => {
  const gateway = await serve(t, (_req, res) => void res.writeHead(401).end());
  const cloud = await syncOnce(
    t,
    { wiki: { cloud_id: '${WIKI_CLOUD}', email: 'bot@example.test', token: '${WIKI_TOKEN}' } },
    { WIKI_CLOUD: CANARY, WIKI_TOKEN: 'wiki-token-1' },
    { SVC_TOOL_SKILLS_SPACE: 'OPS', SVC_CLOUD_SITE_API_URL: gateway },
  );
  t.match(cloud, /skills_sync_failed/);
  t.notMatch(cloud, new RegExp(CANARY), 'the resolved cloud id is in no line');
  t.match(cloud, /\/ex\/confluence\/\$\{WIKI_CLOUD\}\/wiki/, 'the path shows the reference');

  const site = await serve(t, (_req, res) => void res.writeHead(404).end());
  const path = await syncOnce(
    t,
    { wiki: { url: '${WIKI_URL}', token: '${WIKI_TOKEN}' } },
    { WIKI_URL: `${site}/${CANARY}`, WIKI_TOKEN: 'wiki-token-1' },
    { SVC_TOOL_SKILLS_SPACE: 'OPS' },
  );
  t.match(path, /skills_sync_failed/);
  t.notMatch(path, new RegExp(CANARY), 'the resolved URL is in no line');
});
