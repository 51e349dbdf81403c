/**
 * Failover of the stream leader under config writes (issue #15 "Writes stall for 30–90 s when the stream
 * leader dies"): a 3-server cluster with every stream and bucket at 3 replicas, two `svc serve` children
 * told all three servers, and a loop of `If-Match` PUTs alternating between the nodes. Mid-writes the
 * server leading SVC_CONFIG is killed with SIGKILL. Writes succeed again on both nodes within 10 s, every
 * acknowledged revision is still there, no answer is `no_active_revision`, and no 5xx is codeless.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { freePort, runSvc } from '../harness/child.js';
import { startNatsCluster } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { streamLeader } from '../harness/stream-leader.js';

type Json = Record<string, unknown>;

interface Outcome {
  readonly node: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly status: number;
  readonly error?: string;
  readonly revisionId?: string;
}

async function startNode(t: Test, id: string, urls: readonly string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `svc-failover-${id}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      `providers: {queue: {type: jetstream, url: "${urls.join(',')}", replicas: 3}}`,
      `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      `node: {id: ${id}}`,
    ].join('\n'),
  );
  const run = runSvc(['serve', '--config', configFile], { SVC_TOKEN: TOKEN });
  t.teardown(() => run.kill('SIGKILL'));
  await run.waitForLog((line) => line.msg === 'node serving');
  return `http://127.0.0.1:${port}`;
}

const auth = { authorization: `Bearer ${TOKEN}` };
const company = (n: number) => ({
  name: `Acme ${n}`,
  roles: [{ name: 'Ada', kind: 'human', contact: { chat_user_id: 'U1' } }],
});

/** One read-modify-write through `url`: GET /config for the ETag, PUT with If-Match. */
async function writeOnce(node: string, url: string, n: number): Promise<Outcome[]> {
  const out: Outcome[] = [];
  const startedAt = Date.now();
  const call = async (method: string, headers: Record<string, string>, body?: unknown) => {
    try {
      const res = await fetch(`${url}/config`, {
        method,
        headers: { ...auth, ...headers },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(20_000),
      });
      const json = (await res.json().catch(() => ({}))) as Json;
      return { res, json };
    } catch {
      return null;
    }
  };
  const got = await call('GET', {});
  if (!got) return [{ node, startedAt, endedAt: Date.now(), status: 0, error: 'no answer' }];
  if (got.res.status !== 200) {
    const error = typeof got.json['error'] === 'string' ? got.json['error'] : undefined;
    return [{ node, startedAt, endedAt: Date.now(), status: got.res.status, ...(error ? { error } : {}) }];
  }
  const etag = got.res.headers.get('etag') ?? '';
  const put = await call(
    'PUT',
    { 'content-type': 'application/json', 'x-summary': `w${n}`, 'if-match': etag },
    company(n),
  );
  const endedAt = Date.now();
  if (!put) return [{ node, startedAt, endedAt, status: 0, error: 'no answer' }];
  const error = typeof put.json['error'] === 'string' ? put.json['error'] : undefined;
  const revisionId = typeof put.json['revision_id'] === 'string' ? put.json['revision_id'] : undefined;
  out.push({
    node,
    startedAt,
    endedAt,
    status: put.res.status,
    ...(error ? { error } : {}),
    ...(revisionId ? { revisionId } : {}),
  });
  return out;
}

t.test(
  'kill -9 of the SVC_CONFIG leader mid-writes: writes succeed again fleet-wide within 10 s',
  async (t) => {
    const cluster = await startNatsCluster(3, { t });
    const a = await startNode(t, 'node-a', cluster.urls);
    const first = await fetch(`${a}/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'first', 'if-none-match': '*' },
      body: JSON.stringify(company(0)),
    });
    t.equal(first.status, 201, 'the first revision is stored');
    const b = await startNode(t, 'node-b', cluster.urls);
    const nodes = [
      { id: 'node-a', url: a },
      { id: 'node-b', url: b },
    ];

    // 1. writes alternate between the nodes, before and after the kill
    const outcomes: Outcome[] = [];
    let killedAt = Infinity;
    let stopAt = Infinity;
    // Each write wakes whoever waits on the outcomes; `reached` resolves true once `test` holds, false at `ms`.
    const waiters = new Set<() => void>();
    const reached = (test: () => boolean, ms: number) =>
      new Promise<boolean>((resolve) => {
        const check = () => {
          if (!test()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(true);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          resolve(false);
        }, ms);
        waiters.add(check);
        check();
      });
    const loop = (async () => {
      for (let n = 1; Date.now() < stopAt; n += 1) {
        const node = nodes[n % 2]!;
        outcomes.push(...(await writeOnce(node.id, node.url, n)));
        for (const wake of [...waiters]) wake();
      }
    })();
    const before = () => outcomes.filter((o) => o.status === 201).length;
    if (!(await reached(() => before() >= 6, 30_000))) {
      stopAt = 0;
      await loop;
      t.fail(`only ${before()} of 6 writes stored before the kill: ${JSON.stringify(outcomes.slice(-4))}`);
      return;
    }

    const config = await streamLeader(cluster.urls, 'SVC_CONFIG', [0, 1, 2]);
    const coord = await streamLeader(cluster.urls, 'KV_svc_coord', [0, 1, 2]);
    const alive = [0, 1, 2].filter((i) => i !== config);
    killedAt = Date.now();
    process.kill(cluster.servers[config]!.pid, 'SIGKILL');
    // A write needs both: the revision goes to SVC_CONFIG, the claim of the next epoch to svc_coord.
    const [elected, coordElected] = await Promise.all([
      streamLeader(cluster.urls, 'SVC_CONFIG', alive),
      coord === config ? streamLeader(cluster.urls, 'KV_svc_coord', alive) : Promise.resolve(coord),
    ]);
    const electedAt = Date.now();
    t.comment(
      `killed n${config + 1} (SVC_CONFIG leader; svc_coord leader n${coord + 1}); n${elected + 1} and n${coordElected + 1} lead after ${electedAt - killedAt} ms`,
    );
    // Run on until both nodes have written after the kill, then a little longer.
    const wroteAfter = (id: string) =>
      outcomes.some((o) => o.node === id && o.status === 201 && o.startedAt > killedAt);
    // Falls through at 30 s after the kill: the checks below then name the node that never wrote.
    await reached(() => wroteAfter('node-a') && wroteAfter('node-b'), killedAt + 30_000 - Date.now());
    stopAt = Date.now() + 2_000;
    await loop;

    // 2. writes came back on both nodes within 10 s of the kill, and within 5 s of the new leaders. The
    // elections themselves (4–9 s on nats-server 2.9, a raft timeout svc cannot shorten) are allowed to eat into
    // the 10 s only by what it takes past 8 s.
    const budgetMs = Math.max(10_000, electedAt - killedAt + 2_000);
    for (const { id } of nodes) {
      const back = outcomes.find((o) => o.node === id && o.status === 201 && o.startedAt > killedAt);
      t.ok(back, `${id} wrote again after the kill`);
      if (!back) continue;
      t.ok(
        back.endedAt - killedAt <= budgetMs,
        `${id} wrote again ${back.endedAt - killedAt} ms after the kill`,
      );
      t.ok(back.endedAt - electedAt <= 5_000, `${id}: ${back.endedAt - electedAt} ms after the new leader`);
    }
    const failures = outcomes.filter((o) => o.status !== 201 && o.status !== 200);
    t.comment(
      `${outcomes.length} writes, ${failures.length} refused: ${[...new Set(failures.map((f) => `${f.status} ${f.error ?? '-'}`))].join(', ')}`,
    );
    t.same(
      outcomes.filter((o) => o.error === 'no_active_revision'),
      [],
      'a configured fleet never answers no_active_revision',
    );
    t.same(
      outcomes.filter((o) => o.status >= 500 && o.error === undefined),
      [],
      'no 5xx without a code',
    );

    // 3. nothing acknowledged was lost: every stored revision is listed by both nodes
    const acked = outcomes.filter((o) => o.status === 201).map((o) => o.revisionId!);
    for (const { id, url } of nodes) {
      const listed = new Set<string>();
      for (let offset = 0; ; offset += 200) {
        const page = (await (
          await fetch(`${url}/config/revisions?limit=200&offset=${offset}`, { headers: auth })
        ).json()) as {
          revisions: Array<{ revision_id: string }>;
        };
        for (const r of page.revisions) listed.add(r.revision_id);
        if (page.revisions.length < 200) break;
      }
      t.same(
        acked.filter((r) => !listed.has(r)),
        [],
        `${id} lists every acknowledged revision`,
      );
    }
  },
);
