/**
 * Rule 4 across a restart: a failed phase keeps its in-flight call on screen, and the agents read model
 * replays from zero on every boot from stored records alone (progress frames are never stored), so the
 * failed phase's record must carry what the screen showed of the call in flight.
 */
import t from 'tap';
import { Subjects } from '../../../bus/index.js';
import { EventRecord } from '../../../schema/index.js';
import { startLlmServer } from '../../fixtures/llm/llm-server.js';
import { cleanTurn, readModelsFor, startCompany } from './harness.js';

t.test(
  'a failed phase shows the same in-flight call on its agent row after a replay as it did live',
  async (t) => {
    // Plan, then execute calls a tool, and the model call after it never answers: the phase dies in round 0.
    const llm = await startLlmServer({
      wire: 'openai',
      script: [cleanTurn[0]!, cleanTurn[1]!, { ...cleanTurn[2]!, hold: 'never' }],
    });
    t.teardown(() => llm.close());
    let last = 0;
    const now = (): Date => new Date((last = Math.max(Date.now(), last + 1)));
    const h = await startCompany(t, {
      script: [],
      llm,
      now,
      progressEveryMs: 0,
      extra: {
        providers: {
          llm: {
            local: { type: 'openai-compatible', model: 'local-1', base_url: llm.baseUrl, timeout_seconds: 1 },
          },
          llm_order: ['local'],
        },
      },
    });
    const frames: EventRecord[] = [];
    const sub = h.bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (msg) =>
      frames.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data)))),
    );
    t.teardown(() => sub.stop());
    await h.wake('ada');
    await h.waitFor((e) => e.type === 'agent_turn_completed');
    const stored = await h.events();

    // Live: the node folds its frames as they are made, the records as the tail brings them.
    const live = readModelsFor(h);
    const all = [...frames, ...stored].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    for (const e of all) live.applyEvent(e);
    // A boot: stored records only.
    const replayed = readModelsFor(h);
    for (const e of stored) replayed.applyEvent(e);

    const liveCall = live.agent('ada')?.live_call;
    t.match(liveCall, {
      phase: 'execute',
      failed: true,
      in_progress: false,
      round_num: 0,
      running_call: { origin: 'model' },
    });
    t.same(replayed.agent('ada')?.live_call, liveCall, 'the replayed row shows the call as the live one did');
  },
);
