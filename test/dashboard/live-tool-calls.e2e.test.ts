/**
 * The live turn's tool list (spec "Agent row": `live_call`): a tool call that finished in too little time to
 * measure (`duration_ms: 0`, "unmeasured") is done, not running; the call running now is the one the
 * overlay names in `running_call`. A real tool call is over before a test could see 0 ms on a page, so the
 * page's stream carries the node's own row of the seat with the live call chosen, by a route on the page.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';
import { holdableStream } from './fixtures/held-stream.js';

const SEAT = 'theo-park';

t.test(
  'a tool call of 0 ms reads done, and only the call the node says is running reads working',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t);
    const w = await openPage(browser);
    const stream = await holdableStream(w.page);
    await w.page.goto(`${node.url}/dashboard#/seat/${SEAT}`);
    await w.page.waitForSelector('[data-link="live"]');
    await w.page.waitForSelector('text=No turn in flight.');
    stream.hold();
    const agents = stream.snapshot()?.['agents'] as Record<string, Record<string, unknown>>;
    const row = agents[SEAT]!;
    t.ok(row, 'the snapshot carried the seat');
    const started = new Date(Date.now() - 2_000).toISOString();
    const call = {
      turn_id: 'turn-1',
      phase: 'execute',
      iteration: 1,
      model: 'fake-model',
      response: '',
      rounds: [{ round: 0, started_at: started }],
      in_progress: true,
      round_started_at: started,
      max_rounds: 8,
      tool_executions: [
        { name: 'org_lookup', origin: 'builtin', started_at: started, duration_ms: 0 },
        { name: 'memory_recall', origin: 'builtin', started_at: started, duration_ms: 1500 },
      ],
      running_call: { name: 'memory_remember', started_at: started, origin: 'builtin', server: null },
    };
    stream.send('agents', { [SEAT]: { ...row, activity: 'working', live_call: call } });
    const tools = w.page.locator('.live-turn ol.tools-run > li');
    await tools.filter({ hasText: 'memory_recall' }).waitFor();
    const said = async (name: string): Promise<string> =>
      ((await tools.filter({ has: w.page.locator('code', { hasText: name }) }).textContent()) ?? '').replace(
        /\s+/g,
        ' ',
      );
    const unmeasured = await said('org_lookup');
    t.notMatch(unmeasured, /working/, `0 ms is done, not running: ${unmeasured}`);
    t.match(unmeasured, /not measured/, 'and says its time was not measured');
    t.match(await said('memory_recall'), /1\.5 s/, 'a measured call shows its time');
    t.equal(await tools.count(), 3, 'the two done and the one running, once each');
    const running = await said('memory_remember');
    t.match(running, /working/, `the running call reads working: ${running}`);
    t.equal(await tools.filter({ hasText: 'working' }).count(), 1, 'one call working');

    // The call ends: nothing is running, and nothing in the list reads working.
    stream.send('agents', {
      [SEAT]: {
        ...row,
        activity: 'working',
        live_call: {
          ...call,
          running_call: null,
          tool_executions: [
            ...call.tool_executions,
            { name: 'memory_remember', origin: 'builtin', started_at: started, duration_ms: 0 },
          ],
        },
      },
    });
    await tools.filter({ hasText: 'working' }).waitFor({ state: 'detached' });
    t.equal(await tools.count(), 3, 'the call that ended is listed once, done');
    // A model call running is the status line's, not a tool in the list.
    stream.send('agents', {
      [SEAT]: {
        ...row,
        activity: 'working',
        live_call: {
          ...call,
          running_call: { name: 'fake-model', started_at: started, origin: 'model', server: 'local' },
        },
      },
    });
    await tools.filter({ hasText: 'memory_remember' }).waitFor({ state: 'detached' });
    t.equal(await tools.filter({ hasText: 'working' }).count(), 0, 'no tool reads working for a model call');
    // A phase that died keeps the call it died in: that call failed, it is not running.
    stream.send('agents', { [SEAT]: { ...row, activity: 'idle', live_call: { ...call, failed: true } } });
    const died = tools.filter({ hasText: 'memory_remember' });
    await died.waitFor();
    t.match(await died.textContent(), /failed/, 'the call the phase died in reads failed');
    t.notMatch(await died.textContent(), /working/, 'not working');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
