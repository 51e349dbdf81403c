import t from 'tap';
import { startNode } from '../harness/serve-node.js';

interface Listing {
  readonly name: string;
  readonly guarded: boolean;
  readonly params: ReadonlyArray<{ name: string; description: string }> | null;
}

t.test('GET /query lists every question of a running node with the parameters it reads', async (t) => {
  const node = await startNode(t);
  t.teardown(() => node.run.kill('SIGKILL'));
  const answer = await fetch(`${node.url}/query`);
  t.equal(answer.status, 200);
  const { questions } = (await answer.json()) as { questions: Listing[] };
  const names = questions.map((q) => q.name);
  for (const expected of ['events', 'event', 'trace', 'event_series', 'turns', 'config_audit', 'agents'])
    t.ok(names.includes(expected), `${expected} is listed`);
  t.same(names, [...names].sort(), 'listed by name');
  t.same(
    questions.filter((q) => q.params === null).map((q) => q.name),
    [],
    'every question the node registers is described (a new one needs a row in http/routes/query.catalogue.ts)',
  );
  const byName = new Map(questions.map((q) => [q.name, q]));
  t.equal(byName.get('config_audit')?.guarded, true, 'a guarded question says so');
  t.same(
    byName.get('events')?.params?.map((p) => p.name),
    ['limit', 'before_time', 'before_id', 'category', 'agent_id', 'seat', 'type', 'feed_only'],
  );
  t.ok(
    questions.every((q) => q.params?.every((p) => p.description.length > 0)),
    'every parameter has a description',
  );

  // The questions that refuse parameters they do not read prove the listing names only real ones.
  for (const what of ['event_series', 'turns', 'turn', 'phases']) {
    for (const param of byName.get(what)?.params ?? []) {
      const asked = await fetch(`${node.url}/query/${what}?${param.name}=x`);
      const body = (await asked.json()) as { detail?: string };
      t.notMatch(body.detail ?? '', /does not read the parameter/, `${what} reads ${param.name}`);
    }
  }
  const unread = (await (await fetch(`${node.url}/query/turns?nonesuch=1`)).json()) as { detail: string };
  t.match(unread.detail, /does not read the parameter nonesuch/, 'the check above can fail');

  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0);
});

t.test('an unknown question answers 404 unknown_query naming the questions there are', async (t) => {
  const node = await startNode(t);
  t.teardown(() => node.run.kill('SIGKILL'));
  const answer = await fetch(`${node.url}/query/evnts`);
  t.equal(answer.status, 404);
  const body = (await answer.json()) as { error: string; detail: string; hint: string };
  t.equal(body.error, 'unknown_query');
  t.match(body.detail, /"evnts"/);
  t.match(body.hint, /\bevents\b/, 'the hint names the question meant');
  t.match(body.hint, /\bconfig_audit\b/, 'guarded questions are named too');
  t.match(body.hint, /GET \/query/);
  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0);
});
