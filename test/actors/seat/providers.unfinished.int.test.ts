/**
 * A provider's answer that fails after it began, as a seat's turn meets it: the failure on record as a
 * provider failure, the tokens it cost in spend (flagged when estimated), the seat free for its next wake
 * (ops/turn-engine.md "Provider failures", ops/providers.md "Usage").
 */
import t from 'tap';
import { Streams, Subjects } from '../../../bus/index.js';
import { Payloads } from '../../../schema/index.js';
import { startLlmServer } from '../../fixtures/llm/llm-server.js';
import type { Step } from '../../fixtures/llm/script.js';
import { readModelsFor, startCompany, type Harness } from './harness.js';
import { recordedDone } from './wakes.js';

const skip: Step = { kind: 'text', text: '{"decision":"skip"}' };

async function completedTurn(h: Harness, n: number) {
  let seen = 0;
  await h.waitFor((e) => e.type === 'agent_turn_completed' && ++seen >= n);
  return Payloads.AgentTurnCompleted.parse((await h.events('agent_turn_completed'))[n - 1]!.payload);
}

t.test(
  'an answer cut mid-stream records llm_unavailable, counts its tokens as estimated spend, fails the turn and leaves the seat to take its next wake',
  async (t) => {
    // 22 characters streamed: 6 tokens at four characters a token.
    const llm = await startLlmServer({
      wire: 'openai',
      script: [{ kind: 'truncate', text: 'I will plan this turn.' }, skip],
    });
    t.teardown(() => llm.close());
    const h = await startCompany(t, { script: [], llm });
    await h.wake('cy', 'first');
    const turn = await completedTurn(h, 1);
    t.equal(turn.failed, true);
    t.same(turn.phases, ['plan']);

    const unavailable = (await h.events('llm_unavailable')).map((e) =>
      Payloads.LlmUnavailable.parse(e.payload),
    );
    t.equal(unavailable.length, 1);
    t.match(unavailable[0], {
      provider: 'local',
      reason: /^(network|malformed_stream)$/,
      turn_id: turn.turn_id,
      phase: 'plan',
      retry_at: null,
      chain: ['local'],
      attempts: [{ provider: 'local', reason: /^(network|malformed_stream)$/ }],
      after_output: true,
      usage: { output_tokens: 6 },
      usage_estimated: true,
    });

    const spend = (await h.spend()).filter((s) => s.turn_id === turn.turn_id);
    t.equal(spend.length, 1, 'the cut call is counted');
    t.match(spend[0], {
      handle: 'cy',
      phase: 'plan',
      provider: 'local',
      model: 'local-1',
      output_tokens: 6,
      estimated: true,
    });
    t.ok(spend[0]!.input_tokens > 0, 'the prompt sent is counted');
    // Its spend is journaled before it is stored, the phase's failure after: a restart between the two finds it.
    const journal: { kind: string; round?: number; spend?: { id: string }[] }[] = [];
    for await (const msg of h.bus.replay(Streams.Turns, {
      subject: Subjects.turnJournal('cy', turn.turn_id),
    }))
      journal.push(JSON.parse(new TextDecoder().decode(msg.data)) as (typeof journal)[number]);
    const records = journal.filter((r) => r.kind !== 'held'); // the epoch mark is no record
    t.same(
      records.map((r) => r.kind),
      ['turn_started', 'phase_started', 'unfinished', 'phase_failed'],
      'the cut answer on record before the phase failed',
    );
    t.match(records[2], { round: -1, spend: [{ id: spend[0]!.id }] }, 'with the spend record stored');
    t.equal(spend[0]!.total_tokens, spend[0]!.input_tokens + spend[0]!.output_tokens);

    t.equal(h.runtime.host('cy')?.state(), 'idle', 'the seat is not stuck');
    await recordedDone(h, 'cy', turn.turn_id);
    const models = readModelsFor(h);
    for (const e of await h.events()) models.applyEvent(e);
    for (const s of await h.spend()) models.applySpend(s);
    t.match(models.agent('cy'), { activity: 'stopped', stopped_reason: 'provider' });

    await h.wake('cy', 'second');
    const next = await completedTurn(h, 2);
    t.equal(next.failed, false, 'the next wake runs');
  },
);

t.test(
  'an answer cut mid-stream after a fallback records llm_unavailable naming every provider the chain tried, each with its outcome',
  async (t) => {
    const primary = await startLlmServer({ wire: 'openai', script: () => ({ kind: 'status', status: 500 }) });
    const backup = await startLlmServer({
      wire: 'openai',
      script: [{ kind: 'truncate', text: 'I will plan this turn.' }],
    });
    t.teardown(() => Promise.all([primary.close(), backup.close()]));
    const entry = (llm: typeof primary, model: string) => ({
      type: 'openai-compatible',
      model,
      base_url: llm.baseUrl,
    });
    const h = await startCompany(t, {
      script: [],
      llm: primary,
      extra: {
        providers: {
          llm: { local: entry(primary, 'local-1'), backup: entry(backup, 'backup-1') },
          llm_order: ['local', 'backup'],
        },
      },
    });
    await h.wake('cy', 'first');
    const turn = await completedTurn(h, 1);
    t.equal(turn.failed, true);

    const unavailable = (await h.events('llm_unavailable')).map((e) =>
      Payloads.LlmUnavailable.parse(e.payload),
    );
    t.equal(unavailable.length, 1);
    t.match(unavailable[0], {
      provider: 'backup',
      reason: /^(network|malformed_stream)$/,
      chain: ['local', 'backup'],
      after_output: true,
      model: 'backup-1',
    });
    t.same(
      unavailable[0]!.attempts?.map((a) => [a.provider, a.reason, a.status]),
      [
        ['local', 'server_error', 500],
        ['backup', unavailable[0]!.reason, null],
      ],
      'the provider fallen back from, then the one that failed mid-answer',
    );
  },
);

t.test(
  'an answer that began and failed before the chain fell back is journaled with the round the next provider answered',
  async (t) => {
    // The primary's answer begins (its opening frame), then its error event: no text, so the chain falls back.
    const primary = await startLlmServer({ wire: 'openai', script: () => ({ kind: 'error_event' }) });
    const backup = await startLlmServer({ wire: 'openai', script: [skip] });
    t.teardown(() => Promise.all([primary.close(), backup.close()]));
    const entry = (llm: typeof primary, model: string) => ({
      type: 'openai-compatible',
      model,
      base_url: llm.baseUrl,
    });
    const h = await startCompany(t, {
      script: [],
      llm: primary,
      extra: {
        providers: {
          llm: { local: entry(primary, 'local-1'), backup: entry(backup, 'backup-1') },
          llm_order: ['local', 'backup'],
        },
      },
    });
    await h.wake('cy', 'first');
    const turn = await completedTurn(h, 1);
    t.equal(turn.failed, false);
    const spend = (await h.spend()).filter((s) => s.turn_id === turn.turn_id);
    const failed = spend.filter((s) => s.provider === 'local');
    t.equal(failed.length, 1, 'the answer fallen back from is counted');
    t.equal(spend.filter((s) => s.provider === 'backup').length, 1);

    const journal: { kind: string; spend?: { id: string }; unfinished?: { id: string }[] }[] = [];
    for await (const msg of h.bus.replay(Streams.Turns, {
      subject: Subjects.turnJournal('cy', turn.turn_id),
    }))
      journal.push(JSON.parse(new TextDecoder().decode(msg.data)) as (typeof journal)[number]);
    const rounds = journal.filter((r) => r.kind === 'round');
    t.equal(rounds.length, 1);
    t.same(
      rounds[0]!.unfinished?.map((s) => s.id),
      failed.map((s) => s.id),
      'its spend rides with the round, sent again with it when the round is unsettled on resume',
    );
  },
);
