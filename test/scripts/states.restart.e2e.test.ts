/**
 * The node comes back from a stop in the state it was in, read from its store (spec "States and
 * transitions"), whether it was told to stop (SIGTERM) or killed outright (SIGKILL): an unconfigured node
 * still unconfigured; a configured one with the same revision, a paused agent seat still paused and a seat
 * flipped to human still human; one stopped mid-apply (`wait`) with the prior epoch, which it then applies,
 * never taking the cut apply for a failed one. A SIGTERM waits for an apply in progress, bounded: one that ends
 * in time is recorded before the node exits and comes back applied; one that does not is logged as cut by the
 * shutdown, never as applied. A drain is entered once: a second SIGTERM changes nothing, and a webhook
 * delivery meanwhile is refused 503 `draining` like every other write.
 */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { call, type Json } from '../harness/api.js';
import { openConnection } from '../harness/raw-http.js';
import type { LogLine, SvcChild } from '../harness/child.js';
import { restartNode, serveAgain, startNode, TOKEN } from '../harness/serve-node.js';
import { heldToolServer, type HeldToolServer } from '../harness/held-tool-server.js';
import { until } from '../harness/until.js';

const SECRET = 'codehost-a-states-secret-0123';

/** An apply that ended in an error (failed, postponed, unopenable): a reason the node never gets where it should. */
const applyError = (l: LogLine): boolean => l.level >= 50 && l['component'] === 'config.apply';
const said = (l: LogLine | undefined): string =>
  l ? `${l.msg}: ${String((l['err'] as { message?: string } | undefined)?.message ?? '')}` : 'nothing';

/**
 * Every wait here is bounded and fails naming what it saw: an apply that fails before it reaches the held tool
 * server (a subsystem that throws) would otherwise leave `tool.asked` pending until the file's timeout.
 */
async function heldOn(tool: HeldToolServer, run: SvcChild): Promise<void> {
  let asked = false;
  void tool.asked.then(() => (asked = true));
  const seen = await until(
    async () => ({ asked, error: run.lines.find(applyError), exit: run.child.exitCode }),
    (s) => s.asked || s.error !== undefined || s.exit !== null,
    30_000,
  );
  if (!seen.asked) throw new Error(`the apply never reached the held tool server: ${said(seen.error)}`);
}

/** The process's exit code, or a failure naming its last log lines after `ms`. */
async function exitOf(run: SvcChild, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    const last = (): string =>
      run.lines
        .slice(-5)
        .map((l) => l.msg)
        .join(' | ');
    timer = setTimeout(() => reject(new Error(`still running after ${ms} ms; last lines: ${last()}`)), ms);
  });
  try {
    return await Promise.race([run.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The restarted node's health once it reads `applied_epoch` 2, or as it was when its apply logged an error. */
async function healthAtEpoch2(url: string, run: SvcChild): Promise<Json> {
  const seen = await until(
    async () => ({ health: (await call(url, 'GET', '/health')).body, error: run.lines.find(applyError) }),
    (s) => s.health['applied_epoch'] === 2 || s.error !== undefined,
    20_000,
  );
  if (seen.error) throw new Error(`the restarted node's apply logged ${said(seen.error)}`);
  return seen.health;
}

function signedDelivery(id: string): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify({
    action: 'opened',
    sender: { login: 'someone' },
    issue: { number: 1, title: 'x' },
  });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-codehost-a-event': 'issues',
      'x-codehost-a-delivery': id,
      'x-codehost-a-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
  };
}

t.test('an unconfigured node stopped or killed comes back unconfigured', async (t) => {
  const node = await startNode(t);
  let run = node.run;
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    run = await restartNode(t, node, run, signal);
    const health = await call(node.url, 'GET', '/health');
    t.match(health.body, {
      status: 'unconfigured',
      configured: false,
      posture: 'serve',
      applied_epoch: 0,
      seats: [],
    });
    const ready = await call(node.url, 'GET', '/ready');
    t.equal(ready.status, 503, `${signal}: /ready 503`);
    t.match(ready.body, { ready: false, configured: false, reason: 'unconfigured' });
    t.match(await call(node.url, 'GET', '/config'), { status: 404, body: { error: 'no_active_revision' } });
    t.match(await call(node.url, 'GET', '/config/revisions'), {
      status: 200,
      body: { revisions: [], total: 0 },
    });
    t.match(await call(node.url, 'GET', '/agents'), { status: 200, body: [] });
    const delivery = signedDelivery(`d-${signal}`);
    const hook = await fetch(`${node.url}/webhooks/codehost-a`, { method: 'POST', ...delivery });
    t.equal(hook.status, 503, `${signal}: a delivery is still answered 503`);
    // A write that needs an active revision is refused with its code, never taken for the first one.
    const patch = await call(node.url, 'PATCH', '/config', { mission: 'x' });
    t.match(patch, { status: 409, body: { error: 'no_active_revision', hint: /PUT \/config/ } });
    t.match(await call(node.url, 'POST', '/config/reload'), {
      status: 409,
      body: { error: 'no_active_revision' },
    });
  }
});

t.test(
  'a configured node stopped or killed comes back on its revision, a paused seat paused and a human seat human',
  async (t) => {
    const node = await startNode(t);
    const agents = { name: 'Acme', roles: [{ name: 'Ada' }, { name: 'Hu' }] };
    t.equal((await call(node.url, 'PUT', '/config', agents)).status, 201);
    const flipped = await call(node.url, 'PUT', '/config', {
      ...agents,
      roles: [{ name: 'Ada' }, { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }],
    });
    t.equal(flipped.status, 201, 'Hu flipped to a human seat');
    await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 2);
    const paused = await call(node.url, 'POST', '/agents/ada/pause', { reason: 'audit' });
    t.match(paused, { status: 200, body: { changed: true } });
    const pausedRow = await until(
      async () => (await call(node.url, 'GET', '/agents/ada')).body,
      (row) => row['stopped_reason'] === 'paused',
    );
    const revisions = (await call(node.url, 'GET', '/config/revisions')).body;

    let run = node.run;
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      run = await restartNode(t, node, run, signal);
      const health = await until(
        async () => (await call(node.url, 'GET', '/health')).body,
        (h) => h['applied_epoch'] === 2,
        10_000,
      );
      t.match(health, { status: 'ok', configured: true, posture: 'serve', applied_epoch: 2, seats: ['ada'] });
      t.equal((await call(node.url, 'GET', '/ready')).status, 200, `${signal}: ready`);
      t.same(
        (await call(node.url, 'GET', '/config/revisions')).body,
        revisions,
        `${signal}: the same revisions`,
      );
      const rows = (await call(node.url, 'GET', '/agents')).body as unknown as Json[];
      t.same(
        rows.map((r) => r['id']),
        ['ada'],
        `${signal}: the human seat has no agent row`,
      );
      t.match(
        rows[0],
        { activity: 'stopped', stopped_reason: 'paused', paused: pausedRow['paused'] },
        `${signal}: Ada is still paused, by the same record`,
      );
      t.match(await call(node.url, 'GET', '/agents/hu'), { status: 404, body: { error: 'not_found' } });
      // The human seat is not a state a pause can move: refused with its code and hint, nothing done.
      const human = await call(node.url, 'POST', '/agents/hu/pause', {});
      t.match(human, { status: 404, body: { error: 'not_found', hint: /a human seat never runs/ } });
      // The same pause again is no transition.
      const again = await call(node.url, 'POST', '/agents/ada/pause', { reason: 'other' });
      t.match(again, { status: 200, body: { changed: false, paused: { reason: 'audit' } } });
    }
  },
);

t.test(
  'a drain is entered once: a second SIGTERM changes nothing, a delivery meanwhile is 503 draining',
  async (t) => {
    const node = await startNode(t);
    const company = {
      name: 'Acme',
      integrations: { codehost_a: { webhook_secret: SECRET } },
      roles: [{ name: 'Ada' }],
    };
    t.equal((await call(node.url, 'PUT', '/config', company)).status, 201);
    await node.run.waitForLog((l) => l.msg === 'config applied');
    const delivery = signedDelivery('d-ok');
    const accepted = await fetch(`${node.url}/webhooks/codehost-a`, { method: 'POST', ...delivery });
    t.equal(accepted.status < 300, true, `a configured node takes a delivery (${accepted.status})`);

    // An unfinished request holds the drain open while it is read.
    const slow = await openConnection(node.port);
    const probe = await openConnection(node.port);
    const probe2 = await openConnection(node.port);
    t.teardown(() => [slow, probe, probe2].forEach((c) => c.close()));
    slow.write(
      `PUT /config HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"name":`,
    );
    await until(
      async () => (await call(node.url, 'GET', '/health')).body,
      (h) => Number(h['in_flight']) >= 1,
    );
    node.run.kill('SIGTERM');
    await node.run.waitForLog((l) => l.msg === 'drain started');
    node.run.kill('SIGTERM');
    const late = signedDelivery('d-late');
    const refused = await probe.request('POST', '/webhooks/codehost-a', {
      headers: late.headers,
      body: late.body,
    });
    t.equal(refused.status, 503, 'a delivery while draining is refused 503');
    t.match(JSON.parse(refused.body), { error: 'draining', hint: String });
    t.equal(refused.headers['retry-after'], '30');
    const health = await probe2.request('GET', '/health');
    t.match(JSON.parse(health.body), { status: 'shutting_down', shutting_down: true });
    t.equal(
      node.run.lines.filter((l) => l.msg === 'drain started').length,
      1,
      'the second signal started no second drain',
    );
    slow.close();
    t.equal(await exitOf(node.run, 60_000), 0, 'the drain ends cleanly');
    t.equal(node.run.lines.filter((l) => l.msg === 'termination signal').length, 1, 'one signal taken');
  },
);

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  t.test(
    `a node stopped mid-apply (${signal}) comes back on the prior epoch and applies the active one`,
    async (t) => {
      const node = await startNode(t);
      const base = { name: 'Acme', roles: [{ name: 'Ada' }] };
      t.equal((await call(node.url, 'PUT', '/config', base)).status, 201);
      await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 1);
      const tool = await heldToolServer(t);
      t.equal(
        (await call(node.url, 'PUT', '/config', { ...base, mcp_servers: [{ name: 'slow', url: tool.url }] }))
          .status,
        201,
      );
      await heldOn(tool, node.run);
      t.match((await call(node.url, 'GET', '/health')).body, {
        status: 'ok',
        posture: 'wait',
        applied_epoch: 1,
      });

      node.run.kill(signal);
      // A drain waits node.turn_grace_seconds (10) for the apply, then a few bounded steps.
      const stopped = await exitOf(node.run, 60_000);
      if (signal === 'SIGTERM') {
        // The drain waited its bound for the apply, then cut it: said so, never logged as applied.
        t.equal(stopped, 0, 'a cut apply is no failed drain');
        t.notOk(
          node.run.lines.some((l) => l.msg === 'config applied' && l['epoch'] === 2),
          'the cut apply is never logged as applied',
        );
        t.match(
          node.run.lines.find((l) => l['event'] === 'config_apply_cut'),
          { epoch: 2, revision_id: String },
          'the log says the shutdown cut the apply',
        );
      }
      tool.release();
      const again = await serveAgain(t, node);
      const history = await again.waitForLog((l) => l.msg === 'node history replayed');
      t.match(history, { applied_epoch: 1, failed_epoch: null }, 'the cut apply is no failure');
      const replayed = await again.waitForLog((l) => l.msg === 'revisions replayed');
      t.same(replayed['applied_on'], {}, 'nothing recorded the cut apply');
      const health = await healthAtEpoch2(node.url, again);
      t.match(health, { status: 'ok', posture: 'serve', configured: true, applied_epoch: 2, seats: ['ada'] });
      t.equal((await call(node.url, 'GET', '/ready')).status, 200);
    },
  );
}

t.test(
  'a node told to stop mid-apply waits for the apply: it is logged applied only once recorded, and it comes back on that epoch',
  async (t) => {
    const node = await startNode(t);
    const base = { name: 'Acme', roles: [{ name: 'Ada' }] };
    t.equal((await call(node.url, 'PUT', '/config', base)).status, 201);
    await node.run.waitForLog((l) => l.msg === 'config applied' && l['epoch'] === 1);
    const tool = await heldToolServer(t);
    const put = await call(node.url, 'PUT', '/config', {
      ...base,
      mcp_servers: [{ name: 'slow', url: tool.url }],
    });
    t.equal(put.status, 201);
    await heldOn(tool, node.run);

    node.run.kill('SIGTERM');
    await node.run.waitForLog((l) => l.msg === 'drain started');
    // The apply can end now, inside the drain's bound: the drain waits for it and records it.
    tool.release();
    t.equal(await exitOf(node.run, 60_000), 0, 'the drain ends cleanly');
    const at = (msg: string, epoch?: number): number =>
      node.run.lines.findIndex((l) => l.msg === msg && (epoch === undefined || l['epoch'] === epoch));
    t.ok(at('config applied', 2) > at('drain started'), 'the apply ended during the drain');
    t.notOk(
      node.run.lines.some((l) => l['event'] === 'config_apply_cut'),
      'an apply that ended in time is not cut',
    );

    const again = await serveAgain(t, node);
    const history = await again.waitForLog((l) => l.msg === 'node history replayed');
    t.match(history, { applied_epoch: 2, failed_epoch: null }, 'the history holds the apply the log said');
    const replayed = await again.waitForLog((l) => l.msg === 'revisions replayed');
    t.same(replayed['applied_on'], { [String(history['node'])]: 'applied' }, 'its revision_applied record');
    t.match(await healthAtEpoch2(node.url, again), { status: 'ok', configured: true, applied_epoch: 2 });
    // One ConfigRevisionApplied for the drain's apply, one for the restarted node's own.
    const rows = await until(
      async () => (await call(node.url, 'GET', '/events?type=ConfigRevisionApplied')).body['rows'] as Json[],
      (r) => r.filter((row) => /\(epoch 2\) applied/.test(String(row['summary']))).length >= 2,
      10_000,
    );
    t.equal(rows.filter((row) => /\(epoch 2\) applied/.test(String(row['summary']))).length, 2);
  },
);
