/**
 * `work_get` shows what `work_update` replaces (ops/work-tracker.md "Seat tools"): `labels` and `watchers`
 * are whole lists in an update, so a seat adding one must read the current list first; the tool read
 * showed neither, and a seat adding itself as a watcher dropped everyone else. It also says how many
 * comments the item has, since it shows only the latest 20.
 */
import t from 'tap';
import { workTools, type WorkAccess } from '../../../actors/index.js';
import { sendCommand } from '../../../bus/index.js';
import { Commands } from '../../../schema/index.js';
import { startWorkHarness } from '../../http/fixtures/work-harness.js';

type Json = Record<string, unknown>;

t.test('work_get shows the lists work_update replaces, and how many comments there are', async (t) => {
  const w = await startWorkHarness(t);
  const access: WorkAccess = {
    state: () => w.view.state(),
    write: (x) => sendCommand(w.bus, Commands.work.write, x),
    until: (seq, ms) => w.view.until(seq, ms),
  };
  const tools = new Map(workTools({ work: () => access }).map((tool) => [tool.entry.name, tool]));
  let n = 0;
  const run = async (name: string, args: Json) => {
    const r = await tools
      .get(name)!
      .call({ seat: 'coder', agent_id: 'agent-coder', turn_id: 'turn-1', call_id: `c${n++}` }, args);
    const text = r.content.map((c) => ('text' in c ? c.text : '')).join('');
    t.equal(r.is_error, false, text);
    return JSON.parse(text) as Json;
  };

  await run('work_create', { project: 'ENG', title: 'Watched' });
  await run('work_update', { item: 'ENG-1', labels: ['ui', 'infra'], watchers: ['ada', 'bob'] });
  for (let i = 1; i <= 23; i++) await run('work_comment', { item: 'ENG-1', body: `note ${i}` });

  const got = await run('work_get', { item: 'ENG-1' });
  t.same(got['labels'], ['ui', 'infra'], 'the labels an update would replace');
  t.same(got['watchers'], ['ada', 'bob'], 'the watchers an update would replace');
  t.same(got['asked_of'], []);
  t.equal(got['due_date'], null);
  t.equal((got['comments'] as unknown[]).length, 20, 'the latest 20 comments');
  t.match(got['comments'], [{ body: 'note 4' }], 'from the 4th on');
  t.equal(got['comments_total'], 23, 'and how many there are in all');
});
