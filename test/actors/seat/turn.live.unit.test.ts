import t from 'tap';
import { phaseLive } from '../../../actors/seat/turn.live.js';

t.test(
  'the text of a round being written is sent at most every interval, and cleared when it settles',
  async (t) => {
    let clock = 0;
    const sent: Record<string, unknown>[] = [];
    const live = phaseLive(
      {
        events: { publish: () => Promise.resolve(), progress: (p) => void sent.push(p) },
        now: () => new Date(clock),
      },
      { turn_id: 't', phase: 'execute', iteration: 0 },
      { model: 'm', max_rounds: 4, rounds: [], executions: [] },
      { partialEveryMs: 250, everyMs: 0 },
    );
    live.modelCall(-1, 'm', 'local');
    t.match(sent.at(-1), {
      round_num: -1,
      partial_round: null,
      running_call: { name: 'm', origin: 'model', server: 'local' },
    });
    clock = 100;
    live.partial('Hel');
    t.equal(sent.length, 1, 'too soon after the call started');
    clock = 300;
    live.partial('Hello');
    t.match(sent.at(-1), { partial_round: 'Hello' });
    clock = 400;
    live.partial('Hello, wor');
    t.equal(sent.length, 2);
    live.settled({ response: 'Hello, world', narration: 'Hello, world' });
    t.match(sent.at(-1), {
      partial_round: null,
      running_call: null,
      response: 'Hello, world',
      round_narration: 'Hello, world',
    });
    live.settled({ narration: '' });
    t.match(
      sent.at(-1),
      { round_narration: 'Hello, world' },
      'an answer without text keeps the last narration',
    );
    live.toolCall('tickets_create', 'mcp:tickets');
    t.match(sent.at(-1), {
      running_call: { name: 'tickets_create', origin: 'mcp:tickets', server: 'tickets' },
    });
  },
);

/** A live view whose frames are collected; `next()` resolves with the next frame sent. */
function paced(everyMs: number, signal?: AbortSignal) {
  const sent: Record<string, unknown>[] = [];
  let waiting: ((frame: Record<string, unknown>) => void) | null = null;
  const rounds: { round: number }[] = [];
  const live = phaseLive(
    {
      events: {
        publish: () => Promise.resolve(),
        progress: (p) => {
          sent.push(p);
          waiting?.(p);
          waiting = null;
        },
      },
      now: () => new Date(),
    },
    { turn_id: 't', phase: 'execute', iteration: 0 },
    // The loop appends rows to these as the phase runs; each frame reads them as they stand.
    { model: 'm', max_rounds: 4, rounds: rounds as never[], executions: [] },
    { everyMs },
    signal,
  );
  const next = () => new Promise<Record<string, unknown>>((resolve) => (waiting = resolve));
  return { live, sent, next, rounds };
}

t.test('changes made together are one frame, sent after them and showing the newest view', async (t) => {
  const { live, sent, next } = paced(60_000);
  const first = next();
  live.modelCall(-1, 'm', 'local');
  live.settled({ response: 'Looking it up', narration: 'Looking it up' });
  live.toolCall('org_lookup', 'builtin');
  t.equal(sent.length, 0, 'nothing is sent while the changes are being made');
  t.match(await first, {
    round_num: -1,
    response: 'Looking it up',
    running_call: { name: 'org_lookup', origin: 'builtin' },
  });
  t.equal(sent.length, 1, 'three changes, one frame');
});

t.test(
  'after a frame, the next waits out the interval; close sends what is unsent, then nothing',
  async (t) => {
    const { live, sent, next, rounds } = paced(60_000);
    const first = next();
    live.modelCall(-1, 'm', 'local');
    await first;
    live.settled({ response: 'Done', narration: 'Done' });
    rounds.push({ round: -1 });
    live.toolCall('org_lookup', 'builtin');
    live.settled({});
    t.equal(sent.length, 1, 'within the interval: held');
    live.close();
    t.equal(sent.length, 2, 'close sends the held change at once');
    t.match(sent[1], { running_call: null, response: 'Done', rounds: [{ round: -1 }] });
    live.modelCall(0, 'm', 'local');
    live.settled({});
    live.close();
    t.equal(sent.length, 2, 'a closed view sends nothing');
  },
);

t.test('a change after the interval has passed is sent on the next turn of the event loop', async (t) => {
  const { live, next } = paced(1);
  const first = next();
  live.modelCall(-1, 'm', 'local');
  await first;
  // The interval is 1 ms: the held change goes out once it has passed, without a close.
  const second = next();
  live.settled({ response: 'Done' });
  t.match(await second, { running_call: null, response: 'Done' });
  live.close();
});

t.test(
  "the turn's stop closes the view as it fires: the held frame goes at once, and nothing of the cut call after",
  async (t) => {
    const stop = new AbortController();
    const { live, sent, next } = paced(60_000, stop.signal);
    const first = next();
    live.modelCall(-1, 'm', 'local');
    await first;
    live.settled({ response: 'Calling', narration: 'Calling' });
    live.modelCall(0, 'm', 'local');
    t.equal(sent.length, 1, 'within the interval: held');
    stop.abort(new Error('paused'));
    t.equal(sent.length, 2, 'sent within the abort, before whatever records the stop');
    t.match(sent[1], { round_num: 0, running_call: { name: 'm', origin: 'model' } });
    // The cut call unwinding: the model call fails, the phase settles its view.
    live.settled({});
    live.close();
    t.equal(sent.length, 2, 'nothing after the stop');
  },
);

t.test('a view made for a turn already stopped sends nothing', async (t) => {
  const stop = new AbortController();
  stop.abort(new Error('paused'));
  const { live, sent } = paced(0, stop.signal);
  live.modelCall(-1, 'm', 'local');
  live.close();
  t.equal(sent.length, 0);
});

t.test(
  'text that arrived within the interval is sent once the interval has passed, though no more text comes',
  async (t) => {
    const sent: Record<string, unknown>[] = [];
    let waiting: ((frame: Record<string, unknown>) => void) | null = null;
    const live = phaseLive(
      {
        events: {
          publish: () => Promise.resolve(),
          progress: (p) => {
            sent.push(p);
            waiting?.(p);
            waiting = null;
          },
        },
        now: () => new Date(),
      },
      { turn_id: 't', phase: 'execute', iteration: 0 },
      { model: 'm', max_rounds: 4, rounds: [], executions: [] },
      { partialEveryMs: 40, everyMs: 0 },
    );
    live.modelCall(-1, 'm', 'local');
    t.equal(sent.length, 1);
    // A model that writes a line and then thinks (or streams a tool call's arguments) sends no more text.
    const later = new Promise<Record<string, unknown>>((resolve) => (waiting = resolve));
    live.partial('Let me check the CI logs.');
    t.equal(sent.length, 1, 'too soon after the call started: held');
    t.match(await later, { partial_round: 'Let me check the CI logs.', running_call: { name: 'm' } });
    live.partial('Let me check the CI logs. Then');
    live.settled({ response: 'done' });
    const count = sent.length;
    await new Promise((resolve) => setTimeout(resolve, 80));
    t.equal(sent.length, count, 'text held when the round settled is not sent after it');
    t.match(sent.at(-1), { partial_round: null, response: 'done' });
    live.close();
  },
);
