/**
 * `/work/my-work` shows at most 50 rows a list; on a real `svc serve` node, a person with more open items
 * than that is told how many each list holds (`totals`), as `/work/people/{handle}` tells the priorities'
 * count, rather than reading 50 as all there is (ops/work-tracker.md "Personal routes").
 */
import t from 'tap';
import { call, type Json } from '../harness/api.js';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { startNode } from '../harness/serve-node.js';

const bob = { name: 'Bob', handle: 'bob', kind: 'human', contact: { codehost_a_login: 'bob' } };

t.test('my-work lists past 50 rows say how many they hold', async (t) => {
  const node = await startNode(t, nativeBackends);
  await applyNativeWork(t, [node.url], nativeWorkCompany(bob), 'ENG with bob');
  const open = 53;
  const refused: Json[] = [];
  for (let i = 1; i <= open; i++) {
    const made = await call(node.url, 'POST', '/work', {
      project: 'ENG',
      title: `Item ${i} for bob`,
      status: 'todo',
      priority: i <= 51 ? 'high' : 'low',
      assignees: ['bob'],
    });
    if (made.status !== 201) refused.push(made.body);
  }
  t.same(refused, [], 'every item is created');
  const done = await call(node.url, 'POST', '/work', {
    project: 'ENG',
    title: 'Finished for bob',
    status: 'in_progress',
    assignees: ['bob'],
  });
  t.equal(
    (await call(node.url, 'POST', `/work/${String(done.body['key'])}/move`, { to: 'done' })).status,
    200,
  );

  const mine = await call(node.url, 'GET', '/work/my-work?handle=bob');
  t.equal(mine.status, 200, String(mine.body['detail']));
  t.equal((mine.body['assigned'] as Json[]).length, 50, 'a list shows at most 50 rows');
  t.equal((mine.body['priorities'] as Json[]).length, 50);
  t.same(
    mine.body['totals'],
    {
      priorities: 51,
      assigned: open,
      asked_of_me: 0,
      checklist_items: 0,
      collaborating: 0,
      watching_recent: 0,
      unblocked_recent: 0,
    },
    'and counts every row it holds, open ones only',
  );

  const person = await call(node.url, 'GET', '/work/people/bob');
  t.equal(person.status, 200, String(person.body['detail']));
  t.equal((person.body['priorities'] as Json[]).length, 50);
  t.equal(person.body['priorities_total'], 51, 'the person read counts the priorities too');
});
