/**
 * A company end to end on a real `svc serve`: three agent seats and one human seat, a local
 * OpenAI-compatible server that answers with tool calls then text, a real stdio MCP server, and a
 * signed code-host delivery on the public listener that names one agent seat and the human seat.
 * The agent seat plans, calls the MCP tool, reviews and completes; the read routes, the spend rollup
 * and the WebSocket show it; the other seats, the human one above all, get nothing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { freePort, runSvc, type SvcChild } from '../harness/child.js';
import { sendIssueAssigned } from '../fixtures/codehost-a-delivery.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { dashboard, type Frame } from '../http/fixtures/events-node.js';
import { localProviders } from '../fixtures/llm/providers.js';

const TOKEN = 'company-e2e-token-0123456789';
const SECRET = 'codehost-a-company-secret-0123';
const ledgerServer = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'ledger-mcp-server.mjs');

/** A node with a private listener (reads, config) and a public one (webhooks), in a temp dir. */
async function startServed(t: Test): Promise<{ run: SvcChild; url: string; publicUrl: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-company-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  let publicPort = await freePort();
  while (publicPort === port) publicPort = await freePort();
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    [
      'debug: true',
      'providers: {queue: {type: memory}}',
      `api: {host: 127.0.0.1, port: ${port}, public: {port: ${publicPort}}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
      `stream: {store_dir: ${join(dir, 'data')}}`,
    ].join('\n'),
  );
  const run = runSvc(['serve', '--config', configFile], { SVC_TOKEN: TOKEN });
  t.teardown(() => run.kill('SIGKILL'));
  await run.waitForLog((line) => line.msg === 'node serving');
  return { run, url: `http://127.0.0.1:${port}`, publicUrl: `http://127.0.0.1:${publicPort}`, dir };
}

/** Plan picks the ledger tool; execute calls it, then reports; review accepts. */
const script: Step[] = [
  {
    kind: 'text',
    text: '{"decision":"plan","steps":["note the bug"],"success_criteria":["the bug is noted"],"tools":["ledger_note"]}',
    usage: { prompt_tokens: 100, completion_tokens: 20 },
  },
  {
    kind: 'tool_calls',
    calls: [{ id: 'call-1', name: 'ledger_note', arguments: { text: 'bug #7 triaged' } }],
    usage: { prompt_tokens: 120, completion_tokens: 10 },
  },
  {
    kind: 'text',
    text: 'I noted bug #7 in the ledger.',
    usage: { prompt_tokens: 150, completion_tokens: 5 },
  },
  {
    kind: 'text',
    text: '{"verdict":"done","notes":"the bug is noted"}',
    usage: { prompt_tokens: 90, completion_tokens: 8 },
  },
];
const turnTokens = 100 + 20 + 120 + 10 + 150 + 5 + 90 + 8;

type Json = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read loosely and matched
type Loose = any;

t.test(
  'a webhook wakes one agent seat of a company: it plans, calls a real MCP tool, reviews and completes; ' +
    'the read routes, the spend rollup and the socket show it, and the human seat gets nothing',
  async (t) => {
    const llm = await startLlmServer({ wire: 'openai', script });
    t.teardown(() => llm.close());
    const node = await startServed(t);
    const ledger = join(node.dir, 'ledger.jsonl');
    const get = async (path: string): Promise<Loose> => {
      const res = await fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      return { status: res.status, body: (await res.json()) as Loose };
    };

    const company = {
      name: 'Acme',
      mission: 'Ship useful things',
      timezone: 'UTC',
      providers: localProviders(llm.baseUrl),
      mcp_servers: [
        {
          name: 'ledger',
          command: process.execPath,
          args: [ledgerServer],
          env: { LEDGER_FILE: ledger },
          tool_prefix: 'ledger_',
        },
      ],
      integrations: { codehost_a: { webhook_secret: SECRET } },
      roles: [
        { name: 'Ada', goal: 'Keep the lights on' },
        { name: 'Bob', goal: 'Write code' },
        { name: 'Cy', goal: 'Triage issues' },
        { name: 'Hu', kind: 'human', contact: { codehost_a_login: 'hu-at-codehost' } },
      ],
    };
    const put = await fetch(`${node.url}/config`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-summary': 'company',
      },
      body: JSON.stringify(company),
    });
    t.equal(put.status, 201, 'the company is applied');
    await node.run.waitForLog((l) => l.msg === 'config applied');
    t.same(
      node.run.lines
        .filter((l) => l.msg === 'seat spawned')
        .map((l) => l['seat'])
        .sort(),
      ['ada', 'bob', 'cy'],
      'a host (and so an inbox consumer) for each agent seat, none for the human seat',
    );
    const servers = await get('/mcp-servers');
    t.match(servers.body, {
      nodes: [{ servers: [{ server: 'ledger', started: true, tools: ['ledger_note'] }] }],
    });

    // The socket is open before the delivery and records every frame.
    const d = await dashboard(`${node.url.replace('http', 'ws')}/ws/stream`);
    await d.next((f) => f.kind === 'snapshot');

    // A signed delivery on the public listener: an issue assigned to Cy and to the human seat.
    const delivery = await sendIssueAssigned(node.publicUrl, SECRET, ['cy', 'hu-at-codehost']);
    t.equal(delivery.status, 200);
    t.same(await delivery.json(), { accepted: true, duplicate: false });

    const routed = await node.run.waitForLog((l) => l['event'] === 'notification_routed');
    t.same(routed['recipients'], ['cy'], 'the router wakes exactly one seat');
    t.match(
      await node.run.waitForLog((l) => l['event'] === 'notification_human_skipped'),
      { seats: ['hu'] },
      'the human seat named by the delivery is skipped',
    );

    // The turn completes: the agents overlay pushes Cy's last turn.
    const done = await d.next((f) => f.kind === 'agents' && f.data?.cy?.last_turn != null);
    const lastTurn = done.data.cy.last_turn as Json;
    t.match(lastTurn, {
      phases: ['plan', 'execute', 'review'],
      total_tokens: turnTokens,
      failed: false,
      review: { reviewed: true, passed_first: true, attempts: 1 },
    });
    const turnId = lastTurn['turn_id'] as string;

    // The model was asked four times, every time as Cy, and never as any other seat.
    t.equal(llm.requests.length, 4, 'plan, execute (tool call, then text), review');
    const systems = llm.requests.map((r) => JSON.stringify((r.body?.['messages'] as unknown[])[0]));
    for (const [i, phase] of ['PLAN', 'EXECUTE', 'EXECUTE', 'REVIEW'].entries()) {
      t.match(systems[i], `Phase: ${phase}`);
      t.match(systems[i], 'Cy (@cy)');
    }
    t.match(
      JSON.stringify((llm.requests[0]!.body?.['messages'] as unknown[])[1]),
      'Login page is blank',
      'the trigger reached the prompt',
    );

    // The MCP server process itself received the call.
    t.ok(existsSync(ledger), 'the tool server wrote its ledger');
    const calls = readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    t.same(
      calls.map((c) => [c['tool'], c['arguments']]),
      [['note', { text: 'bug #7 triaged' }]],
    );
    const toolPid = servers.body.nodes[0].servers[0].pid as number;
    t.equal(calls[0]!['pid'], toolPid, 'by the server /mcp-servers reports');

    // /agents/cy shows the turn in llm_history: its phases, tool call and tokens.
    const cy = await get('/agents/cy');
    t.equal(cy.status, 200);
    const history = (cy.body.llm_history as Json[]).filter((r) => r['turn_id'] === turnId);
    t.same(history.map((r) => r['phase']).sort(), ['execute', 'plan', 'review']);
    const byPhase = new Map(history.map((r) => [r['phase'], r]));
    t.match(byPhase.get('plan'), { total_tokens: 120, failed: false, model: 'local-1' });
    t.match(byPhase.get('execute'), {
      total_tokens: 285,
      tool_executions: [
        {
          name: 'ledger_note',
          origin: 'mcp:ledger',
          server: 'ledger',
          result: 'noted: bug #7 triaged',
          error: null,
        },
      ],
    });
    t.match(byPhase.get('review'), { total_tokens: 98 });
    t.match(cy.body, { last_turn: { turn_id: turnId }, tokens: { total_tokens: turnTokens } });

    // /tokens/breakdown counts the turn's four calls, all Cy's.
    const tokens = await get('/tokens/breakdown');
    t.match(tokens.body, {
      totals: { total_tokens: turnTokens, calls: 4 },
      by_agent: [{ handle: 'cy', total_tokens: turnTokens, calls: 4 }],
      by_turn: [{ turn_id: turnId, handle: 'cy', total_tokens: turnTokens }],
    });
    t.equal(tokens.body.by_agent.length, 1, 'no other seat spent anything');

    // The socket pushed the progress of the turn as it ran (the stream-only agent_turn_progress
    // folded into Cy's live call), including the round after the tool call.
    const live = d.frames.filter(
      (f: Frame) => f.kind === 'agents' && f.data?.cy?.live_call?.in_progress === true,
    );
    t.same(
      [...new Set(live.map((f) => f.data.cy.live_call.phase as string))],
      ['plan', 'execute', 'review'],
      'a live call was pushed for each phase',
    );
    t.ok(
      live.some(
        (f) =>
          f.data.cy.live_call.phase === 'execute' &&
          f.data.cy.live_call.round_num === 0 &&
          f.data.cy.live_call.tool_executions.length === 1,
      ),
      'the progress of the second execute round (tool call done, model asked again) was pushed',
    );
    t.notOk(
      d.frames.some((f) => f.kind === 'event' && f.data?.type === 'agent_turn_progress'),
      'progress is stream-only: never an event frame',
    );
    const phaseFrames = d.frames.filter((f) => f.kind === 'event' && f.data?.type === 'agent_phase_started');
    t.same(
      phaseFrames.map((f): unknown => f.data.agent_id),
      ['cy', 'cy', 'cy'],
      'phase events were pushed, only for Cy',
    );
    const feedKinds = d.frames.filter((f) => f.kind === 'event').map((f): unknown => f.data.type);
    t.ok(
      feedKinds.indexOf('webhook_received') >= 0 &&
        feedKinds.indexOf('webhook_received') < feedKinds.indexOf('agent_phase_started'),
      'the delivery was pushed before the turn began',
    );
    for (const other of ['ada', 'bob', 'hu'])
      t.notOk(
        d.frames.some((f) => f.kind === 'agents' && f.data?.[other]?.live_call != null),
        `no live call was pushed for ${other}`,
      );
    t.notOk(
      d.frames.some((f) => f.kind === 'agents' && 'hu' in (f.data as object)),
      'the human seat has no agent row on the socket',
    );

    // The events feed: phases and the turn for Cy only.
    for (const seat of ['ada', 'bob', 'hu']) {
      const rows = (await get(`/events?agent_id=${seat}&limit=400`)).body.rows as Json[];
      t.notOk(
        rows.some((r) => String(r['type']).startsWith('agent_')),
        `no agent_phase_started or turn event for ${seat}`,
      );
    }
    const cyRows = (await get('/events?agent_id=cy&limit=400')).body.rows as Json[];
    t.equal(
      cyRows.filter((r) => r['type'] === 'agent_phase_started').length,
      3,
      "Cy's three phases are in the feed",
    );

    // The human seat has no agent view, no history and no spend; Ada and Bob are idle with none.
    const hu = await get('/agents/hu');
    t.equal(hu.status, 404, 'a human seat has no agent row (so no llm_history)');
    for (const seat of ['ada', 'bob']) {
      const row = await get(`/agents/${seat}`);
      t.match(row.body, { llm_history: [], last_turn: null, live_call: null, activity: 'idle' });
    }
    t.same(
      ((await get('/agents')).body as Json[]).map((a) => a['id']),
      ['ada', 'bob', 'cy'],
    );

    // The trace: the delivery's webhook_received, then every event of the turn it woke.
    const feed = (await get('/events?limit=400')).body.rows as Json[];
    t.notOk(
      feed.some((r) => r['type'] === 'agent_turn_progress'),
      'progress is never stored: the history holds none of the rounds pushed live',
    );
    const receivedRows = feed.filter((r) => r['type'] === 'webhook_received');
    t.equal(receivedRows.length, 1, 'the delivery is in the feed once');
    const traceId = receivedRows[0]!['trace_id'] as string;
    t.match(traceId, /^[0-9a-f]{32}$/);
    const turnRows = cyRows.filter((r) => String(r['type']).startsWith('agent_'));
    t.same(
      [...new Set(turnRows.map((r) => r['trace_id']))],
      [traceId],
      "every event of the turn carries the delivery's trace",
    );
    // A learning seat records the turn's episode right after the turn, in the same trace.
    const isEpisode = (f: Frame): boolean => f.kind === 'event' && f.data?.type === 'episode_recorded';
    await (d.frames.find(isEpisode) ?? d.next(isEpisode));
    const trace = (await get(`/events/trace/${traceId}`)).body;
    const traced = trace.events as Json[];
    t.same(
      traced.map((e) => e['type']),
      [
        'webhook_received',
        'agent_phase_started',
        'agent_phase_completed',
        'agent_phase_started',
        'agent_phase_completed',
        'agent_phase_started',
        'agent_phase_completed',
        'agent_turn_completed',
        'episode_recorded',
      ],
      'the trace links the delivery to the phases, the end of the turn and its episode',
    );
    t.match(traced[0], { payload: { provider: 'codehost-a', delivery_id: 'delivery-7', kind: 'issues' } });
    t.match(traced.at(-1), { agent_id: 'cy', payload: { turn_id: turnId } });

    d.client.close();
    await d.client.closed;
    node.run.kill('SIGTERM');
    t.equal(await node.run.exited, 0, 'the node drains cleanly');
  },
);
