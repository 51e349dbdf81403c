// The live view of a model call that falls back down the provider chain names the provider being called.
import t, { type Test } from 'tap';
import { Subjects } from '../../../bus/index.js';
import { EventRecord, Payloads } from '../../../schema/index.js';
import { startLlmServer, type LlmServer } from '../../fixtures/llm/llm-server.js';
import { captureLogs } from '../toolservers/harness.js';
import { cleanTurn, readModelsFor, startCompany, type Harness } from './harness.js';

const entry = (llm: LlmServer, model: string) => ({
  type: 'openai-compatible',
  model,
  base_url: llm.baseUrl,
});

/** Every live-view frame as it is sent (the memory bus delivers an emitted frame at once). */
function framesOf(t: Test, h: Harness): EventRecord[] {
  const frames: EventRecord[] = [];
  const sub = h.bus.subscribe(Subjects.liveEvent('agent_turn_progress'), (msg) =>
    frames.push(EventRecord.parse(JSON.parse(new TextDecoder().decode(msg.data)))),
  );
  t.teardown(() => sub.stop());
  return frames;
}

t.test(
  'while a call runs on the provider the chain fell back to, the live view names that provider and its model',
  async (t) => {
    const primary = await startLlmServer({ wire: 'openai', script: () => ({ kind: 'status', status: 502 }) });
    // The backup holds its first answer until the test has read the live view.
    const backup = await startLlmServer({
      wire: 'openai',
      script: [{ ...cleanTurn[0]!, hold: 'plan' }, ...cleanTurn.slice(1)],
    });
    t.teardown(() => Promise.all([primary.close(), backup.close()]));
    const h = await startCompany(t, {
      script: [],
      llm: primary,
      progressEveryMs: 0,
      extra: {
        providers: {
          llm: { local: entry(primary, 'local-1'), backup: entry(backup, 'backup-1') },
          llm_order: ['local', 'backup'],
        },
      },
    });
    const frames = framesOf(t, h);
    await h.wake('ada');
    await backup.waitForRequests(1);
    t.equal(primary.requests.length, 1, 'the first provider refused the call');
    // Frames go out as the view changes (pacing 0): the one of the backup call precedes its request.
    const models = readModelsFor(h);
    for (const e of await h.events()) models.applyEvent(e);
    for (const f of frames) models.applyEvent(f);
    t.match(models.agent('ada'), {
      live_call: {
        phase: 'plan',
        in_progress: true,
        model: 'backup-1',
        running_call: { origin: 'model', name: 'backup-1', server: 'backup' },
      },
    });
    const last = Payloads.AgentTurnProgress.parse(frames.at(-1)!.payload);
    t.match(last, { model: 'backup-1', running_call: { name: 'backup-1', server: 'backup' } });
    backup.release('plan');
    const done = await h.waitFor((e) => e.type === 'agent_turn_completed');
    t.equal(done.payload['failed'], false);
  },
);

t.test(
  'a phase failed after falling back records the last provider tried as its call in flight, and its WARN line says the failure once',
  async (t) => {
    const primary = await startLlmServer({ wire: 'openai', script: () => ({ kind: 'status', status: 500 }) });
    const backup = await startLlmServer({ wire: 'openai', script: () => ({ kind: 'status', status: 502 }) });
    t.teardown(() => Promise.all([primary.close(), backup.close()]));
    const logs = captureLogs();
    const h = await startCompany(t, {
      script: [],
      llm: primary,
      logs,
      extra: {
        providers: {
          // Neither failure is a cooldown: the chain fails with no retry_at, so the phase fails.
          llm: { local: entry(primary, 'local-1'), backup: entry(backup, 'backup-1') },
          llm_order: ['local', 'backup'],
        },
      },
    });
    await h.wake('ada');
    const phase = Payloads.AgentPhaseCompleted.parse(
      (await h.waitFor((e) => e.type === 'agent_phase_completed')).payload,
    );
    t.equal(phase.failed, true);
    t.match(phase.in_flight, { running_call: { origin: 'model', name: 'backup-1', server: 'backup' } });

    const line = await logs.waitForNth((l) => l.msg === 'phase failed', 1);
    const err = line['err'] as { message: string; type: string };
    t.equal(err.message, phase.error, 'the failure is said once');
    t.match(err.message, /every LLM provider in the chain failed/);
    t.notMatch(err.message, /failed.*: .*every LLM provider in the chain failed/);
    t.match(line, { reason: 'provider', phase: 'plan' });
  },
);
