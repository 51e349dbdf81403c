/**
 * A counterparty profile is labelled by the person's name, else login, else the vendor's id — never their
 * e-mail address (ops/turn-engine.md "Counterparty profiles"; the profiler is told to leave out contact
 * details). Inside `svc serve` (JetStream): a wiki delivery's author known by an account id and an e-mail but
 * no username wakes a seat twice; the memory view labels the profile with the account id, and neither the
 * view nor the profiler's nor the next turn's prompt carries the e-mail.
 */
import t from 'tap';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { startBusNode } from '../harness/bus-node.js';
import { until } from '../harness/until.js';
import { mentionWake, notificationFrom, queueWake } from '../harness/wake.js';
import { plainTurns, profiled, putLearningCompany } from './fixtures/learning-company.js';

const EMAIL = 'grace.hopper@example.com';
const ACCOUNT = '557058:f0e1d2c3';

interface View {
  counterparty_profiles: Array<Record<string, unknown>>;
  episodes: unknown[];
}

t.test(
  'a wiki author known by account id and e-mail is labelled by the account id; the e-mail shows nowhere',
  async (t) => {
    const turn = plainTurns('Answered on the page.');
    let turnCalls = 0;
    const llm = await startLlmServer({
      wire: 'openai',
      script: (request) => {
        if (JSON.stringify(request.body).includes('profile of a person')) return profiled('editor');
        return turn[turnCalls++] ?? { kind: 'status', status: 500 };
      },
    });
    t.teardown(() => llm.close());
    const { node, bus } = await startBusNode(t);
    t.equal(await putLearningCompany(node.url, llm.baseUrl, 'p'), 201);
    await node.run.waitForLog((l) => l.msg === 'config applied');

    // As the wiki parser names a delivery's author: the account id and the e-mail the relay shares.
    const author = notificationFrom({ id: ACCOUNT, email: EMAIL }, 'wiki');
    const memory = async (): Promise<View> =>
      (await (await fetch(`${node.url}/agents/ada/memory`)).json()) as View;
    await queueWake(bus, 'ada', mentionWake('Page 7: is it current?', { payload: { notification: author } }));
    const first = await until(memory, (v) => v.counterparty_profiles.length === 1);
    t.match(first.counterparty_profiles[0], {
      subject_label: ACCOUNT,
      subject_external_id: ACCOUNT,
      subject_platform: 'wiki',
      traits: { role: 'editor' },
    });

    await queueWake(bus, 'ada', mentionWake('Page 8: review it', { payload: { notification: author } }));
    const second = await until(memory, (v) => v.counterparty_profiles[0]?.['interaction_count'] === 2);
    t.notMatch(JSON.stringify(second), EMAIL, 'the memory view carries no e-mail');
    const asked = llm.requests.map((r) => JSON.stringify(r.body));
    const about = asked.filter((b) => b.includes('What you know about'));
    t.ok(about.length > 0, 'the second turn reads the profile');
    t.match(about[0], `What you know about ${ACCOUNT} on wiki`);
    const profiler = asked.filter((b) => b.includes('profile of a person'));
    t.ok(profiler.length > 0);
    for (const b of [...about, ...profiler])
      t.notMatch(
        b.match(/(Person|What you know about)[^\\]*/)?.[0] ?? '',
        EMAIL,
        'no prompt names the e-mail',
      );
  },
);
