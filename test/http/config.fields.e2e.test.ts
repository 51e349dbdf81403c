/**
 * Fields of the company document (spec "Resources and fields") through the config routes on a real
 * listener: a field the spec lists is either applied by the node or answered with a warning that says
 * it is not, never accepted in silence; a value the node could not honour is refused at its path.
 */
import t from 'tap';
import { company, type Json, json, startConfigNode } from './fixtures/config-node.js';

const notApplied = (body: Json): string[] =>
  ((body['warnings'] as Json[] | undefined) ?? [])
    .filter((w) => w['kind'] === 'not_applied')
    .map((w) => w['path'] as string);

t.test(
  'embeddings of a type not built are answered not_applied on a dry run and a write; openai ones and the personal memory refresh cap, applied, are not',
  async (t) => {
    const node = await startConfigNode(t);
    const doc = {
      ...company(),
      providers: {
        ...(company()['providers'] as Json),
        embeddings: { type: 'cohere', model: 'embed-v3', dimensions: 1024 },
      },
      learning: { personal_memory: { max_refreshes_per_turn: 2 } },
    };
    const dry = await node.call('PUT', '/config?dry_run=true', { body: doc });
    t.equal(dry.status, 200);
    const expected = ['providers.embeddings'];
    t.same(notApplied(await json(dry)).sort(), expected);
    const written = await node.call('PUT', '/config', { body: doc, headers: { 'x-summary': 'fields' } });
    t.equal(written.status, 201);
    t.same(notApplied(await json(written)).sort(), expected);
    const plain = await node.call('PUT', '/config?dry_run=true', { body: company() });
    t.same(notApplied(await json(plain)), [], 'a document without them warns nothing');
    const openai = {
      ...doc,
      providers: {
        ...doc.providers,
        embeddings: { type: 'openai', model: 'text-embedding-3-small', dimensions: 1536 },
      },
    };
    const applied = await node.call('PUT', '/config?dry_run=true', { body: openai });
    t.same(notApplied(await json(applied)), [], 'openai embeddings are applied: no warning');
  },
);

t.test(
  'mcp_env for a shared tool server is refused at its path: only a shared: false server reads a seat’s env',
  async (t) => {
    const node = await startConfigNode(t);
    const doc = (shared: boolean | undefined) => {
      const d = company() as Json & { roles: Json[]; units: Json[] };
      d['mcp_servers'] = [{ name: 'gh', command: 'gh-mcp', ...(shared === undefined ? {} : { shared }) }];
      d.roles[0]!['mcp_env'] = { gh: { GH_TOKEN: '${ADA_GH}' } };
      d.units[0]!['mcp_env'] = { gh: { GH_ORG: 'acme' } };
      return d;
    };
    for (const shared of [undefined, true]) {
      for (const query of ['?dry_run=true', '']) {
        const res = await node.call('PUT', `/config${query}`, {
          body: doc(shared),
          headers: { 'x-summary': 'mcp_env' },
        });
        t.equal(res.status, 400, `shared: ${String(shared)} ${query}`);
        const body = await json(res);
        t.equal(body['error'], 'validation_error');
        t.same(
          (body['problems'] as Json[]).map((p) => [p['path'], p['kind']]),
          [
            ['roles[0].mcp_env.gh', 'conflict'],
            ['units[0].mcp_env.gh', 'conflict'],
          ],
        );
        t.match((body['problems'] as Json[])[0], { message: /shared/ });
      }
    }
    const perSeat = await node.call('PUT', '/config?dry_run=true', { body: doc(false) });
    t.equal(perSeat.status, 200, 'a shared: false server takes them');
  },
);

t.test('a turn_engine round limit of 0 is refused at its path rather than read as the default', async (t) => {
  const node = await startConfigNode(t);
  const fields = [
    'max_tool_rounds',
    'plan_max_tool_rounds_ceiling',
    'execute_max_tool_rounds_ceiling',
    'extension_round_step',
  ];
  const zeros = { ...company(), turn_engine: Object.fromEntries(fields.map((f) => [f, 0])) };
  for (const query of ['?dry_run=true', '']) {
    const res = await node.call('PUT', `/config${query}`, { body: zeros, headers: { 'x-summary': 'zero' } });
    t.equal(res.status, 400, `PUT /config${query}`);
    const body = await json(res);
    t.equal(body['error'], 'validation_error');
    t.same(
      (body['problems'] as Json[]).map((p) => [p['path'], p['kind']]),
      fields.map((f) => [`turn_engine.${f}`, 'out_of_range']),
    );
  }
  const ones = { ...company(), turn_engine: Object.fromEntries(fields.map((f) => [f, 1])) };
  t.equal((await node.call('PUT', '/config?dry_run=true', { body: ones })).status, 200);
});

t.test(
  'a seat sandbox without a coding agent is refused at default_coding_agent: it would give the seat no sandbox',
  async (t) => {
    const node = await startConfigNode(t);
    const doc = (sandbox: Json) => {
      const d = company() as Json & { roles: Json[] };
      d.roles[0]!['sandbox'] = sandbox;
      return d;
    };
    for (const sandbox of [{ setup: ['npm ci'], env: { CI: '1' } }, { default_coding_agent: '  ' }]) {
      const res = await node.call('PUT', '/config?dry_run=true', { body: doc(sandbox) });
      t.equal(res.status, 400, JSON.stringify(sandbox));
      const body = await json(res);
      t.equal(body['error'], 'validation_error');
      t.match(body['problems'], [
        { path: 'roles[0].sandbox.default_coding_agent', kind: 'missing', seat: 'chief-agent' },
      ]);
    }
    const ok = await node.call('PUT', '/config?dry_run=true', {
      body: doc({ setup: 'npm ci', default_coding_agent: 'claude -p' }),
    });
    t.equal(ok.status, 200);
  },
);

t.test(
  'a coalescing batch size without a window is answered not_applied: no window means no batching',
  async (t) => {
    const node = await startConfigNode(t);
    const alone = { ...company(), notification_coalesce_max_batch: 5 };
    for (const doc of [alone, { ...alone, notification_coalesce_window_seconds: 0 }]) {
      const res = await node.call('PUT', '/config?dry_run=true', { body: doc });
      t.equal(res.status, 200);
      t.same(notApplied(await json(res)), ['notification_coalesce_max_batch']);
    }
    const paired = { ...alone, notification_coalesce_window_seconds: 30 };
    t.same(notApplied(await json(await node.call('PUT', '/config?dry_run=true', { body: paired }))), []);
  },
);

t.test(
  'a seat sandbox key other than setup, env and default_coding_agent is answered not_applied at its path: nothing reads it',
  async (t) => {
    const node = await startConfigNode(t);
    const d = company() as Json & { roles: Json[]; units: Json[] };
    d.roles[0]!['sandbox'] = { default_coding_agent: 'claude -p', api_key: '${CODER_KEY}', setpu: 'npm ci' };
    const bo = ((d.units[0]!['children'] as Json[])[0]!['roles'] as Json[])[0]!;
    bo['sandbox'] = { default_coding_agent: 'claude -p', setup: ['npm ci'], env: { CI: '1' } };
    const expected = ['roles[0].sandbox.api_key', 'roles[0].sandbox.setpu'];
    const dry = await node.call('PUT', '/config?dry_run=true', { body: d });
    t.equal(dry.status, 200, 'accepted: a newer build may read them');
    const dryBody = await json(dry);
    t.same(notApplied(dryBody).sort(), expected);
    const warning = ((dryBody['warnings'] as Json[]) ?? []).find((w) => w['path'] === expected[1]);
    t.match(warning, { seat: 'chief-agent', message: /setup, env and default_coding_agent/ });
    t.notMatch(JSON.stringify(dryBody['warnings']), 'npm ci', 'the value is never quoted');
    const written = await node.call('PUT', '/config', { body: d, headers: { 'x-summary': 'sandbox' } });
    t.equal(written.status, 201);
    t.same(notApplied(await json(written)).sort(), expected, 'the write warns the same');
  },
);

t.test(
  'max_tool_rounds above a phase ceiling, and an extension step with extensions off, are answered not_applied: the phase gets less than asked',
  async (t) => {
    const node = await startConfigNode(t);
    const warned = async (turnEngine: Json): Promise<Json[]> => {
      const res = await node.call('PUT', '/config?dry_run=true', {
        body: { ...company(), turn_engine: turnEngine },
      });
      t.equal(res.status, 200, JSON.stringify(turnEngine));
      return ((await json(res))['warnings'] as Json[]).filter((w) => w['kind'] === 'not_applied');
    };
    // The defaults' ceilings are plan 32, execute 40 (ops/turn-engine.md).
    const above = await warned({ max_tool_rounds: 36 });
    t.same(
      above.map((w) => w['path']),
      ['turn_engine.max_tool_rounds'],
    );
    t.match(above[0]!['message'], /partly applied: .*plan phase gets 32/);
    t.notMatch(above[0]!['message'], /execute/, 'execute’s ceiling of 40 holds 36');
    const lowered = await warned({ max_tool_rounds: 12, execute_max_tool_rounds_ceiling: 10 });
    t.match(lowered[0], { path: 'turn_engine.max_tool_rounds', message: /execute phase gets 10/ });
    const step = await warned({ extension_round_step: 4 });
    t.same(
      step.map((w) => w['path']),
      ['turn_engine.extension_round_step'],
    );
    t.match(step[0]!['message'], /extension_enabled/);
    t.same(
      await warned({
        max_tool_rounds: 30,
        extension_enabled: true,
        extension_round_step: 4,
        plan_max_tool_rounds_ceiling: 30,
      }),
      [],
      'within both ceilings, extensions on: nothing to warn',
    );
  },
);
