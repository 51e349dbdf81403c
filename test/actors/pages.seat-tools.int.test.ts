import t from 'tap';
import { serviceBuiltins } from '../../actors/index.js';
import { startPagesNode } from '../http/fixtures/pages-node.js';

t.test('seats get the knowledge tools as builtins, declaring where writes deliver', async (t) => {
  const n = await startPagesNode(t);
  const tools = serviceBuiltins(n.knowledge.tools);
  const entries = new Map(tools.map((tool) => [tool.entry.name, tool.entry]));
  t.same([...entries.keys()].sort(), [
    'pages_comment',
    'pages_containers',
    'pages_read',
    'pages_search',
    'pages_write',
  ]);
  t.equal(entries.get('pages_write')!.delivers, 'knowledge_base');
  t.equal(entries.get('pages_comment')!.delivers, 'knowledge_base');
  t.equal(entries.get('pages_search')!.delivers, null);
  t.equal(entries.get('pages_write')!.source, 'builtin');
  t.equal((entries.get('pages_write')!.input_schema as { type: string }).type, 'object');
});

t.test('a seat writes, comments and searches as itself; a retried call writes once', async (t) => {
  const n = await startPagesNode(t);
  const tools = new Map(serviceBuiltins(n.knowledge.tools).map((tool) => [tool.entry.name, tool]));
  const ctx = { seat: 'builder', agent_id: '00000000-0000-5000-8000-000000000001', call_id: 'turn-1:0:0:0' };
  const write = tools.get('pages_write')!;
  const first = await write.call(ctx, { container: 'ENG', title: 'Build notes', body: 'compiled fine' });
  t.equal(first.is_error, false, JSON.stringify(first.content));
  const retried = await write.call(ctx, { container: 'ENG', title: 'Build notes', body: 'compiled fine' });
  t.equal(
    retried.is_error,
    false,
    'the same call id is the same op_id: answered, not refused as a taken title',
  );
  t.match(retried.content[0]!.text, /"repeated": true/);
  const page = await n.call('GET', '/pages/ENG/Build%20notes');
  t.same(page.json['created_by'], { kind: 'seat', id: 'builder', name: null });
  const comment = await tools
    .get('pages_comment')!
    .call({ ...ctx, call_id: 'turn-1:0:0:1' }, { page: 'ENG/build notes', body: 'done' });
  t.equal(comment.is_error, false);
  const found = await tools.get('pages_search')!.call(ctx, { q: 'compiled' });
  t.match(found.content[0]!.text, /Build notes/);
  const bad = await write.call({ ...ctx, call_id: 'turn-1:0:0:2' }, { container: 'ENG' });
  t.equal(bad.is_error, true, 'a create without a title is a readable tool error');
  t.match(bad.content[0]!.text, /bad_params/);
});

t.test('a retried tool call answers its first outcome after its page was renamed or deleted', async (t) => {
  const n = await startPagesNode(t);
  const tools = new Map(serviceBuiltins(n.knowledge.tools).map((tool) => [tool.entry.name, tool]));
  const ctx = { seat: 'builder', agent_id: '00000000-0000-5000-8000-000000000001', call_id: 'turn-2:0:0:0' };
  const made = await n.call('POST', '/pages', { body: { container: 'ENG', title: 'Draft' } });
  const id = made.json['page_id'] as string;
  const rename = { page: 'ENG/Draft', title: 'Final' };
  const write = tools.get('pages_write')!;
  t.equal((await write.call(ctx, rename)).is_error, false);
  const comment = { page: 'ENG/Final', body: 'ok' };
  const commentCtx = { ...ctx, call_id: 'turn-2:0:0:1' };
  t.equal((await tools.get('pages_comment')!.call(commentCtx, comment)).is_error, false);
  t.equal((await n.call('DELETE', `/pages/${id}`)).status, 200);
  const again = await write.call(ctx, rename);
  t.equal(again.is_error, false, JSON.stringify(again.content));
  t.match(again.content[0]!.text, /"repeated": true/);
  const commentAgain = await tools.get('pages_comment')!.call(commentCtx, comment);
  t.equal(commentAgain.is_error, false, JSON.stringify(commentAgain.content));
  t.match(commentAgain.content[0]!.text, /"repeated": true/);
  const elsewhere = await tools.get('pages_comment')!.call(commentCtx, { page: 'ENG/Other', body: 'x' });
  t.equal(elsewhere.is_error, true, 'the call id on another page is another write');
  // Read the way every builtin refusal reads (ops/work-tracker.md), code first.
  t.match(elsewhere.content[0]!.text, /^Refused \(op_id_reused\): /);
});
