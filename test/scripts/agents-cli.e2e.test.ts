/**
 * `svc agents` through the built CLI against one `svc serve` node with two agent seats (ada, bob) and a human
 * seat: the list and one seat as tables and as the node's JSON, a pause and resume seen in the list, clearing
 * the questions ada's log holds open, the activity window, an unknown seat (exit 1 with the node's problem),
 * a missing token (refused as every client command is) and bad invocations (exit 2).
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import t from 'tap';
import { ensureCatalogue, openMemoryBus, Subjects } from '../../bus/index.js';
import { runSvc } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

// About thirty CLI processes (each a Node start) and a node: past the default 120 s on a loaded machine.
t.setTimeout(300_000);

type Json = Record<string, unknown>;

async function svc(args: string[], env: Record<string, string | undefined> = { SVC_TOKEN: TOKEN }) {
  const run = runSvc(args, env);
  const code = await run.exited;
  const out = run.stdout();
  return { code, out, err: run.stderr(), json: () => JSON.parse(out) as unknown };
}

/** Two questions ada's own log holds open, asked before this node first started. */
const asked = '2026-01-02T03:04:05.000Z';
const needs = ['need-1', 'need-2'].map((id, i) => ({
  id,
  to: 'hu',
  question: i === 0 ? 'Which branch do we ship from?' : 'May I\nmerge?',
  context: null,
  urgency: 'normal',
  asked_at: asked,
  turn_id: 'turn-old-1',
}));

async function seedNeeds(storeDir: string): Promise<void> {
  const bus = await openMemoryBus({ storeDir });
  await ensureCatalogue(bus);
  for (const need of needs) {
    const record = { kind: 'need_recorded', at: asked, node: 'node-old', need };
    await bus.publish(Subjects.seatLog('ada'), new TextEncoder().encode(JSON.stringify(record)));
  }
  await bus.close();
}

/** The line of `seat` in a `svc agents list` table, as its cells. */
const rowOf = (table: string, seat: string): string[] =>
  (table.split('\n').find((line) => line.startsWith(`${seat} `)) ?? '').split(/\s{2,}/);

t.test('svc agents reads and steers the agent seats of a running node', async (t) => {
  const node = await startNode(t, '', 'memory', {}, seedNeeds);
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'seats' },
    body: JSON.stringify({
      name: 'Acme',
      timezone: 'UTC',
      roles: [
        { name: 'Ada', handle: 'ada' },
        { name: 'Bob', handle: 'bob' },
        { name: 'Hu', handle: 'hu', kind: 'human', contact: { operator_id: 'ops' } },
      ],
    }),
  });
  t.equal(put.status, 201, 'the company is stored');
  await node.run.waitForLog((line) => line.msg === 'config applied');
  const agents = (...args: string[]) => svc(['agents', ...args, '--url', node.url]);
  const list = await until(
    () => agents('list'),
    (run) => rowOf(run.out, 'ada')[2] === 'needs',
  );

  t.test(
    'list: one row per agent seat, what an operator scans for; --json is the answer as is',
    async (t) => {
      t.equal(list.code, 0, list.err);
      t.same(rowOf(list.out, 'SEAT'), [
        'SEAT',
        'ROLE',
        'ACTIVITY',
        'PAUSED',
        'WAITS ON PEOPLE',
        'TOKENS 24H',
        'BUDGET',
        'LAST ERROR',
      ]);
      // The row's wait names its latest question, and how many more (one line: the newline is a space).
      t.same(rowOf(list.out, 'ada'), ['ada', 'Ada', 'needs', '-', 'May I merge? (and 1 more question)', '0', '0 (no cap)', '-']); // prettier-ignore
      t.same(rowOf(list.out, 'bob'), ['bob', 'Bob', 'idle', '-', '-', '0', '0 (no cap)', '-']);
      t.notMatch(list.out, /^hu /m, 'a human seat is no agent');
      t.equal((await svc(['agents', '--url', node.url])).out, list.out, 'svc agents alone lists');
      const json = await agents('list', '--json');
      t.equal(json.code, 0);
      const answer = (await (await fetch(`${node.url}/agents`)).json()) as Json[];
      t.same(json.json(), answer, 'the answer as the node gave it');
    },
  );

  t.test('show: one seat with its pause, wait, tokens and LLM calls; --json is the answer', async (t) => {
    const shown = await agents('show', 'Ada');
    t.equal(shown.code, 0, shown.err);
    t.match(shown.out, /^seat {8}ada \(role Ada\)$/m, 'a role name finds the seat');
    t.match(shown.out, /^activity {4}needs$/m);
    t.match(shown.out, /^paused {6}no$/m);
    t.match(
      shown.out,
      new RegExp(`^waits on {4}May I merge\\? \\(and 1 more question\\) \\(since ${asked}\\)$`, 'm'),
    );
    t.match(shown.out, /^last turn {3}none$/m);
    t.match(shown.out, /^tokens 24h {2}0 \(0 in, 0 out\) over 0 calls$/m);
    t.match(shown.out, /\n\nno LLM calls recorded\n$/);
    const json = await agents('show', 'ada', '--json');
    t.match(json.json(), {
      id: 'ada',
      role: 'Ada',
      activity: 'needs',
      llm_history: [],
      coverage: { complete: true },
    });
  });

  t.test('pause and resume print what changed, and the list follows', async (t) => {
    const paused = await agents('pause', 'bob', '--reason', 'maintenance', '--stop-running');
    t.equal(paused.code, 0, paused.err);
    t.match(paused.out, /^paused bob \(by ops at \S+: maintenance; stop-running\)\n$/);
    const listed = await until(
      () => agents('list'),
      (run) => rowOf(run.out, 'bob')[2] === 'stopped (paused)',
    );
    t.equal(rowOf(listed.out, 'bob')[3], 'ops, stop-running: maintenance', 'the list shows bob paused');
    const again = await agents('pause', 'bob', '--reason', 'other');
    t.equal(again.code, 0, 'a pause that changes nothing is no failure');
    t.match(
      again.out,
      /^bob was already paused, nothing changed \(by ops at \S+: maintenance; stop-running\)\n$/,
    );
    const shown = await agents('show', 'bob');
    t.match(shown.out, /^paused {6}by ops at \S+: maintenance \(stop-running: a running turn is cut\)$/m);

    const resumed = await agents('resume', 'bob', '--reason', 'done');
    t.equal(resumed.code, 0, resumed.err);
    t.equal(resumed.out, 'resumed bob\n');
    const after = await until(
      () => agents('list'),
      (run) => rowOf(run.out, 'bob')[2] === 'idle',
    );
    t.equal(rowOf(after.out, 'bob')[3], '-', 'the list shows bob no longer paused');
    const twice = await agents('resume', 'bob', '--json');
    t.equal(twice.code, 0);
    t.same(twice.json(), { id: 'bob', paused: null, changed: false }, '--json prints the answer');
    t.equal((await agents('resume', 'bob')).out, 'bob was not paused, nothing changed\n');
  });

  t.test('clear-needs closes the named questions, then every open one', async (t) => {
    const one = await agents('clear-needs', 'ada', '--id', 'need-1', '--id', 'need-9');
    t.equal(one.code, 0, one.err);
    t.equal(one.out, 'cleared on ada: need-1; still open: need-2; not open: need-9\n');
    const rest = await agents('clear-needs', 'ada', '--json');
    t.same(rest.json(), { id: 'ada', cleared: ['need-2'], open: [] });
    t.equal(
      (await agents('clear-needs', 'ada')).out,
      'nothing cleared on ada, nothing changed; still open: none\n',
    );
    const listed = await until(
      () => agents('list'),
      (run) => rowOf(run.out, 'ada')[2] !== 'needs',
    );
    t.same(rowOf(listed.out, 'ada').slice(2, 5), ['idle', '-', '-'], 'the list follows');
  });

  t.test('activity: the window the route takes, as a table or its JSON', async (t) => {
    const table = await agents('activity', '--days', '3');
    t.equal(table.code, 0, table.err);
    t.match(table.out, /^3 company days since \S+ \(UTC\)\n/);
    t.same(rowOf(table.out, 'bob'), ['bob', 'Bob', '0', '0', '0', '-', '-', '-', '-']);
    t.match((await agents('activity', '--json')).json(), { days: 7, seats: [{ id: 'ada' }, { id: 'bob' }] });
  });

  t.test('an unknown or human seat exits 1 with the node problem, in the command words', async (t) => {
    const shown = await agents('show', 'nobody');
    t.equal(shown.code, 1);
    t.equal(shown.out, '');
    t.equal(
      shown.err,
      'svc agents: 404 not_found: no agent seat "nobody"\nhint: Use a seat handle or role name from svc agents (human seats have no agent view).\n',
    );
    for (const seat of ['nobody', 'hu']) {
      const paused = await agents('pause', seat);
      t.equal(paused.code, 1, seat);
      t.equal(
        paused.err,
        `svc agents: 404 not_found: no agent seat "${seat}" runs in the fleet\nhint: Only a running agent seat can be paused (a human seat never runs); svc agents lists them.\n`,
      );
    }
  });

  t.test('without a token a write is refused as every client command refuses', async (t) => {
    const agent = await svc(['agents', 'pause', 'bob', '--url', node.url], {});
    const fleet = await svc(['fleet', 'status', '--url', node.url], {});
    t.equal(agent.code, 1);
    t.match(agent.err, /^svc agents: the node needs an operator token: set SVC_TOKEN to a token of the node's api\.auth\.tokens\nsvc agents: 401 invalid_token/); // prettier-ignore
    t.equal(agent.err, fleet.err.replaceAll('svc fleet', 'svc agents'), 'worded as svc fleet words it');
    t.notMatch(agent.err, new RegExp(TOKEN), 'no credential echoed');
    const wrong = await svc(['agents', 'resume', 'bob', '--url', node.url], { SVC_TOKEN: 'not-the-token' });
    t.equal(wrong.code, 1);
    t.match(wrong.err, /refused the token in SVC_TOKEN/);
    t.notMatch(wrong.err, /not-the-token/, 'no credential echoed');
    const reads = await svc(['agents', 'list', '--url', node.url], {});
    t.equal(reads.code, 0, 'reads are anonymous on this node');
  });
});

t.test('bad invocations exit 2 before any request; an unreachable node is named', async (t) => {
  // Port 1 answers nothing: a request sent would end in "cannot reach", exit 1.
  const url = ['--url', 'http://127.0.0.1:1'];
  const cases: Array<[string[], string]> = [
    [['show'], 'svc agents show needs ID (a seat handle or role name)'],
    [['pause', 'a', 'b'], 'svc: unexpected arguments: b'],
    [['fly'], 'svc: unknown agents verb: fly'],
    [['show', 'ada', '--reason', 'x'], 'svc: --reason belongs to svc agents pause, resume, not show'],
    [['list', '--stop-running'], 'svc: --stop-running belongs to svc agents pause, not list'],
    [['activity', '--days', '31'], 'svc: --days must be a whole number from 1 to 30 (got "31")'],
    [['activity', '--days', '0'], 'svc: --days must be a whole number from 1 to 30 (got "0")'],
    [['clear-needs', 'ada', '--id', ''], 'svc: --id needs a question id'],
  ];
  for (const [args, said] of cases) {
    const run = await svc(['agents', ...args, ...url]);
    t.equal(run.code, 2, args.join(' '));
    t.equal(run.err, `${said}\nRun 'svc agents --help' for usage.\n`);
  }
  const down = await svc(['agents', ...url]);
  t.equal(down.code, 1);
  t.match(
    down.err,
    /^svc agents: cannot reach http:\/\/127\.0\.0\.1:1 \(.*ECONNREFUSED.*\): is the node running/,
  );
  // Something answering in another shape (a node of another release, a proxy) is said so, not half-printed.
  const other = createServer((_req, res) => res.end('[{"id":"ada","activity":"idle"}]'));
  await once(other.listen(0, '127.0.0.1'), 'listening');
  t.teardown(() => other.close());
  const otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
  const odd = await svc(['agents', '--url', otherUrl]);
  t.equal(odd.code, 1);
  t.equal(
    odd.err,
    "svc agents: the node's answer is not a list of agent rows ([0].role: expected a string); --json prints it as is\n",
  );
  t.equal(odd.out, '');
  t.equal((await svc(['agents', '--json', '--url', otherUrl])).out, '[{"id":"ada","activity":"idle"}]\n');
  const help = await svc(['agents', '--help']);
  t.equal(help.code, 0);
  t.match(help.out, /^Usage: svc agents \[<verb>\]/);
  t.match((await svc(['--help'])).out, /^ {2}agents {4}the agent seats/m, 'svc --help names it');
  const bash = (await svc(['completion', 'bash'])).out;
  const completed = execFileSync(
    'bash',
    ['-c', `${bash}\nCOMP_WORDS=(svc agents cl); COMP_CWORD=2; _svc; echo "\${COMPREPLY[@]}"`],
    { encoding: 'utf8' },
  );
  t.equal(completed.trim(), 'clear-needs', 'the shell completes its verbs');
});
