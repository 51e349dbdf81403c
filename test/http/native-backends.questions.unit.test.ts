/**
 * The native tracker's and knowledge base's reads as questions: they run the routes' own handlers (path
 * parameter from a question parameter, the rest as the query, the asker's actor), and without the backend
 * they answer the routes' refusal.
 */
import { pino } from 'pino';
import t from 'tap';
import { ApiError, nativeBackendQuestions, type RouteDef } from '../../http/index.js';

type Request = Parameters<RouteDef['handler']>[0];
const ctx = { actor: null, log: pino({ level: 'silent' }) };
const seen: Request[] = [];
const ask = async (
  questions: ReturnType<typeof nativeBackendQuestions>,
  name: string,
  params: URLSearchParams,
  asker: typeof ctx,
): Promise<unknown> => questions.get(name)!.answer(params, asker);
const echo = (pattern: string): RouteDef => ({
  method: 'GET',
  pattern,
  handler: (req) => {
    seen.push(req);
    return { status: 200, body: { pattern, params: req.params, query: req.query.toString() } };
  },
});
const workRoutes = ['/work', '/work/projects', '/work/:id'].map(echo);
const knowledgeRoutes = ['/containers', '/pages', '/pages/*'].map(echo);

t.test('with both backends native, each question is its route', async (t) => {
  const questions = nativeBackendQuestions({
    tracker: 'native',
    knowledge: 'native',
    workRoutes,
    knowledgeRoutes,
  });
  t.same([...questions.keys()].sort(), [
    'containers',
    'native_backends',
    'page',
    'pages',
    'work_item',
    'work_items',
    'work_projects',
  ]);
  t.ok(
    [...questions.values()].every((q) => !q.guarded),
    'reads, open as the routes are',
  );
  t.same(await ask(questions, 'work_items', new URLSearchParams('project=ENG&group=todo'), ctx), {
    pattern: '/work',
    params: {},
    query: 'project=ENG&group=todo',
  });
  t.same(await ask(questions, 'work_item', new URLSearchParams('id=ENG-4'), ctx), {
    pattern: '/work/:id',
    params: { id: 'ENG-4' },
    query: '',
  });
  t.same(await ask(questions, 'page', new URLSearchParams('id=ENG/Runbooks'), ctx), {
    pattern: '/pages/*',
    params: { '*': 'ENG/Runbooks' },
    query: '',
  });
  t.equal(seen.at(-1)?.actor, null, 'the asker is the actor');
  await t.rejects(ask(questions, 'work_item', new URLSearchParams(), ctx), { code: 'bad_params' });
});

t.test('without the backend, every question answers the routes refusal', async (t) => {
  const questions = nativeBackendQuestions({ tracker: 'tracker_a', knowledge: undefined });
  t.same(await ask(questions, 'native_backends', new URLSearchParams(), ctx), {
    tracker: 'tracker_a',
    knowledge: null,
  });
  for (const [name, setting] of [
    ['work_projects', /tracker\.backend is native \(this node's is tracker_a\)/],
    ['work_item', /tracker\.backend/],
    ['containers', /knowledge\.backend is native \(this node's is unset\)/],
    ['page', /knowledge\.backend/],
  ] as const) {
    const err = await ask(questions, name, new URLSearchParams('id=x'), ctx).catch((e: unknown) => e);
    t.ok(err instanceof ApiError, name);
    t.match(err, { code: 'unknown_query', detail: setting }, name);
  }
});
