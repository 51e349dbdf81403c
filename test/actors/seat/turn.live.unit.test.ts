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
      250,
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
