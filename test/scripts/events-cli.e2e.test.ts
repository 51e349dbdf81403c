import { execFileSync } from 'node:child_process';
import t from 'tap';
import { capture } from '../harness/capture.js';
import { publishEvent, newEvent } from '../../bus/index.js';
import { main } from '../../scripts/svc.js';
import { startEventsNode } from '../http/fixtures/events-node.js';

let clock = Date.now() - 60_000;
const ev = (type: string, trace?: string) =>
  newEvent({
    now: new Date((clock += 1000)),
    type,
    category: 'task',
    source: 'test',
    summary: type,
    actor: 'system',
    ...(trace ? { trace: { trace_id: trace, parent_span_id: null } } : {}),
  });

t.test('svc events list, get and trace read a running node', async (t) => {
  const { h, bus, events } = await startEventsNode(t);
  const trace = 'c'.repeat(32);
  const sent = [ev('TaskCreated', trace), ev('TaskAssigned', trace), ev('TaskCompleted')];
  for (const e of sent) await publishEvent(bus, e);
  await events.projection.until(3, 30_000);
  const run = async (...args: string[]) => {
    const out = capture();
    const err = capture();
    const code = await main(['events', ...args, '--url', h.base], {}, out, err);
    return { code, out: out.text(), err: err.text() };
  };
  const page = await run('list', '--limit', '2');
  t.equal(page.code, 0);
  t.equal(page.out.trim().split('\n').length, 2);
  t.match(page.err, /more: --before-time \S+ --before-id \S+/);
  const all = await run('list', '--all', '--limit', '1');
  t.same(
    all.out
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id),
    [...sent].reverse().map((e) => e.id),
  );
  const traced = await run('trace', trace);
  t.equal(traced.out.trim().split('\n').length, 2);
  t.match(traced.err, 'total: 2');
  const one = await run('get', sent[0]!.id);
  t.equal((JSON.parse(one.out) as { id: string }).id, sent[0]!.id);
  const missing = await run('get', 'nope');
  t.equal(missing.code, 1);
  t.match(
    missing.err,
    /^svc events: 404 not_found: .*\nhint: /,
    'worded as every client command words a refusal',
  );
  const bad = await run('list', '--before-id', 'x');
  t.equal(bad.code, 2, 'half a cursor is a usage error, said before asking');
  t.match(bad.err, '--before-time and --before-id go together');
  const refused = await run('list', '--before-time', 'yesterday', '--before-id', 'x');
  t.equal(refused.code, 2, 'a cursor instant that is no instant is a usage error, said before asking');
  t.match(refused.err, /^svc: --before-time must be an RFC 3339 timestamp/);
  t.equal((await run('frobnicate')).code, 2);
});

t.test('svc events get finds ids that are dot segments; the more: line pastes into a shell', async (t) => {
  const { h, bus, events } = await startEventsNode(t);
  const tricky = ['.', '..', 'a/b?c#d', "-it's a $b"];
  for (const id of tricky) await publishEvent(bus, { ...ev('TaskCreated'), id });
  await events.projection.until(tricky.length, 30_000);
  const run = async (...args: string[]) => {
    const out = capture();
    const err = capture();
    const code = await main(['events', '--url', h.base, ...args], {}, out, err);
    return { code, out: out.text(), err: err.text() };
  };
  for (const id of tricky) {
    const one = await run('get', '--', id);
    t.equal(one.code, 0, `get ${JSON.stringify(id)}: ${one.err}`);
    if (one.code === 0) t.equal((JSON.parse(one.out) as { id: string }).id, id);
  }
  // The newest row is the last published: its id is the cursor the more: line prints.
  const page = await run('list', '--limit', '1');
  t.equal(page.code, 0);
  const hint = /^more: (.*)$/m.exec(page.err)?.[1] ?? '';
  const words = execFileSync('sh', ['-c', `printf '%s\\n' ${hint}`], { encoding: 'utf8' })
    .trimEnd()
    .split('\n');
  t.same(words.slice(2), [`--before-id=${tricky[3]}`], 'the shell reads the cursor back as one word');
  const next = await run('list', '--limit', '1', ...words);
  t.equal(next.code, 0, next.err);
  t.equal((JSON.parse(next.out) as { id: string }).id, tricky[2], 'the pasted cursor reads the next page');
});

t.test('svc events tail prints live feed events; the node going away is said and exits 3', async (t) => {
  const { h, bus } = await startEventsNode(t);
  const out = capture();
  const err = capture();
  const tail = main(['events', 'tail', '--url', h.base, '--category', 'task'], {}, out, err);
  // The hub holds the socket once the upgrade is answered, which is when tail says so.
  await err.until('tailing');
  const e = ev('TaskCreated');
  await publishEvent(bus, e);
  await out.until(e.id);
  await h.gw.close();
  t.equal(await tail, 3, 'not a clean end: the node went away');
  t.match(err.text(), 'svc events tail: the node closed the stream (it stopped or is unreachable)');
  t.equal((JSON.parse(out.text().trim()) as { id: string }).id, e.id);
});

t.test('svc events tail with a refused token says how to give one', async (t) => {
  const { h } = await startEventsNode(t);
  const err = capture();
  const code = await main(['events', 'tail', '--url', h.base], { SVC_TOKEN: 'not-a-token' }, capture(), err);
  t.equal(code, 1);
  t.match(err.text(), /the node refused the token in SVC_TOKEN/);
});

t.test('no message shows the userinfo of SVC_URL', async (t) => {
  for (const password of ['UrlPassw0rd', 'Url@Passw0rd', 'Url#Passw0rd', 'Url?Passw0rd', 'Url Passw0rd'])
    for (const args of [['list'], ['get', 'some-id'], ['tail']]) {
      const err = capture();
      const env = { SVC_URL: `http://admin:${password}@127.0.0.1:1` };
      const code = await main(['events', ...args], env, capture(), err);
      // A # or ? in the password ends the authority early: refused as a bad address (exit 2), never sent.
      const early = /[#?]/.test(password);
      t.equal(code, early ? 2 : 1, `${args[0]}: ${early ? 'a bad address' : 'unreachable'}`);
      t.match(
        err.text(),
        early ? /\$SVC_URL is not an http\(s\) URL/ : /cannot reach (http|ws):\/\/127\.0\.0\.1:1/,
      );
      t.notMatch(err.text(), /Passw0rd|admin/, `${args[0]} ${JSON.stringify(password)}: no credentials`);
    }
});
