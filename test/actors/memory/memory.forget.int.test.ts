/**
 * `memory_forget` (ops/tool-servers.md "Builtin tools", ops/turn-engine.md "Personal memory") on the real
 * memory store: a seat removes one of its own notes by the id `memory_recall` shows, with a
 * `memory_forgotten` event; another seat's note or an unknown id is a tool error that removes nothing; a note
 * already removed answers so, without an error, and the event is published again (a call retried after a cut
 * still announces it).
 */
import t, { type Test } from 'tap';
import {
  createLearningGate,
  createMemoryStore,
  memoryTools,
  type MemoryStore,
} from '../../../actors/index.js';
import { ensureCatalogue, openMemoryBus } from '../../../bus/index.js';
import { Company, type EventRecord } from '../../../schema/index.js';

const ada = { seat: 'ada', agent_id: '6f1c2b1e-8d3a-5c1e-9a4b-2f0e1d3c4b5a', turn_id: 'turn-1' };
const bob = { seat: 'bob', agent_id: '0a9b8c7d-6e5f-5a4b-8c3d-2e1f0a9b8c7d', turn_id: 'turn-2' };

type BuiltinTool = ReturnType<typeof memoryTools>[number];

async function toolsOn(
  t: Test,
  doc: Record<string, unknown> = { roles: [{ name: 'Ada' }, { name: 'Bob' }] },
): Promise<{ store: MemoryStore; published: EventRecord[]; tool: (name: string) => BuiltinTool }> {
  const bus = await openMemoryBus({});
  t.teardown(() => bus.close());
  const store = createMemoryStore({ kv: (await ensureCatalogue(bus)).memory });
  const published: EventRecord[] = [];
  const learning = createLearningGate();
  learning.apply(Company.parse({ name: 'Acme', ...doc }));
  const tools = memoryTools({
    memory: store,
    events: { publish: (e) => Promise.resolve(void published.push(e)) },
    learning,
  });
  const tool = (name: string): BuiltinTool => {
    const found = tools.find((b) => b.entry.name === name);
    if (!found) throw new Error(`no builtin ${name}`);
    return found;
  };
  return { store, published, tool };
}

const text = (r: { content: Array<{ text?: string }> }): string => r.content.map((p) => p.text).join('');
const idOf = (r: { content: Array<{ text?: string }> }): string =>
  /Remembered as ([0-9a-f-]{36})/.exec(text(r))?.[1] ?? '';

t.test(
  'the catalogue offers memory_forget as a destructive, idempotent write of personal memory',
  async (t) => {
    const { tool } = await toolsOn(t);
    const entry = tool('memory_forget').entry;
    t.equal(entry.delivers, 'personal_memory');
    t.match(entry.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    t.same((entry.input_schema as { required: string[] }).required, ['id']);
    t.match(
      JSON.stringify(tool('memory_remember').entry.input_schema),
      /kept until you remove it with memory_forget/,
      'remember names the way to remove a note',
    );
  },
);

t.test('a seat forgets one of its own notes by the id recall shows, with memory_forgotten', async (t) => {
  const { store, published, tool } = await toolsOn(t);
  const kept = idOf(await tool('memory_remember').call(ada, { content: 'Grace signs off releases' }));
  const other = idOf(await tool('memory_remember').call(ada, { content: 'Freeze ends at five' }));
  const recalled = JSON.parse(text(await tool('memory_recall').call(ada, {}))) as Array<{ id: string }>;
  t.same(recalled.map((r) => r.id).sort(), [kept, other].sort(), 'recall shows the ids');

  const forgot = await tool('memory_forget').call({ ...ada, call_id: 'f1' }, { id: other });
  t.equal(forgot.is_error, false, text(forgot));
  t.match(text(forgot), `Forgot ${other}.`);
  t.same(
    (await store.rows(ada.agent_id)).map((r) => r.id),
    [kept],
    'the row is gone from the store',
  );
  const event = published.at(-1);
  t.match(event, {
    type: 'memory_forgotten',
    category: 'learning',
    source: 'seat/ada',
    agent_id: 'ada',
    payload: { memory_id: other, reason: 'seat' },
  });

  const again = await tool('memory_forget').call({ ...ada, call_id: 'f1' }, { id: other });
  t.equal(again.is_error, false, 'forgetting a removed note is no error');
  t.match(text(again), /already forgotten/);
  t.equal(published.at(-1)?.id, event?.id, 'a retried call announces the same event');
});

t.test("another seat's note or an unknown id is refused and removes nothing", async (t) => {
  const { store, published, tool } = await toolsOn(t);
  const bobs = idOf(await tool('memory_remember').call(bob, { content: 'Bob keeps this' }));
  const before = published.length;
  for (const id of [bobs, 'no-such-note', 'not a/valid.key*']) {
    const refused = await tool('memory_forget').call(ada, { id });
    t.equal(refused.is_error, true, id);
    t.match(text(refused), /No note .* among your notes/, id);
  }
  t.same(
    (await store.rows(bob.agent_id)).map((r) => r.id),
    [bobs],
    "bob's note stays",
  );
  t.equal(published.length, before, 'no event');
});

t.test('a seat whose learning is off can still forget what it kept', async (t) => {
  const { tool, store } = await toolsOn(t);
  const id = idOf(await tool('memory_remember').call(ada, { content: 'kept before learning went off' }));
  const off = await toolsOn(t, { roles: [{ name: 'Ada', learning_enabled: false }] });
  await off.store.remember(ada.agent_id, (await store.rows(ada.agent_id))[0]!);
  const forgot = await off.tool('memory_forget').call(ada, { id });
  t.equal(forgot.is_error, false, text(forgot));
  t.same(await off.store.rows(ada.agent_id), []);
});
