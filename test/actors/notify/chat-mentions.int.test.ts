/**
 * A chat transport's text carries what agents wrote (a question, a turn's summary): it must read as written
 * in the channel yet ping no one. A Slack hook reads `<!channel>`, `<!here>`, `<!everyone>` and `<@U…>` as
 * mentions; Mattermost reads those Slack forms too and its own `@channel`, `@all`, `@here` and `@name`.
 */
import t from 'tap';
import { newEvent, publishEvent } from '../../../bus/index.js';
import { categoryOf, EventCategory } from '../../../schema/index.js';
import { company, hook, setup, until } from './notify.fixture.js';

/** Slack's control sequences that notify: `<!channel>`, `<!here>`, `<!everyone>`, `<!subteam^…>`, `<@U…>`. */
const slackMentions = (text: string): string[] => text.match(/<[!@][^>]*>/g) ?? [];

/**
 * The mentions Mattermost finds in a hook's text: its Slack translation first, then each word (split on
 * what cannot be part of one) or its parts around `.`, `-`, `:` that starts with `@`.
 */
function mattermostMentions(text: string): string[] {
  const translated = text.replace(/<!(channel|here|all)>/g, '@$1').replace(/<@?([a-z0-9]{26})>/gi, '@$1');
  const words = translated.split(/[^:.\-_@\p{L}\p{N}]+/u).flatMap((w) => [w, ...w.split(/[.\-:]/)]);
  return words.filter((w) => w.startsWith('@') && w.length > 1);
}

/** What a person reads: Slack's three entities decoded (in one pass, as a reader does), zero-width characters unseen. */
const entities: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };
const shown = (text: string): string =>
  text.replace(/[\u200B\u2060]/g, '').replace(/&(?:lt|gt|amp);/g, (e) => entities[e]!);

t.test('agent text in a chat message reads as written and mentions no one', async (t) => {
  const { bus, transports } = await setup(t);
  const h = await hook(t);
  await transports.applier.apply(
    company({ channel: { type: 'chat', url: h.url, events: ['human_asked', 'agent_turn_completed'] } }),
    null,
  );
  const question =
    '<!channel> <!here> <!everyone> <@U0123ABC> @channel @all @here, (@everyone) x.@here @hu: R&D <b>ok?</b> mail a@b.io';
  await publishEvent(
    bus,
    newEvent({
      type: 'human_asked',
      category: categoryOf('human_asked') ?? EventCategory.System,
      source: 'test',
      summary: 'ada asks hu',
      actor: 'ada',
      agent_id: 'ada',
      payload: { to: '@here', question, urgency: 'high' },
    }),
  );
  const summary = 'ada: agent_turn_completed pinged <!channel|channel> and @all &amp; <https://x.example|x>';
  await publishEvent(
    bus,
    newEvent({
      type: 'agent_turn_completed',
      category: categoryOf('agent_turn_completed') ?? EventCategory.System,
      source: 'test',
      summary,
      actor: 'ada',
      agent_id: 'ada',
    }),
  );
  await until(() => h.received.length >= 2);
  const [asked, turn] = h.received.map((r) => (JSON.parse(r.body) as { text: string }).text);
  for (const text of [asked!, turn!]) {
    t.same(slackMentions(text), [], `no Slack mention in ${JSON.stringify(text)}`);
    t.same(mattermostMentions(text), [], `no Mattermost mention in ${JSON.stringify(text)}`);
  }
  t.equal(
    shown(asked!).split('\n')[1],
    `ada asks @here (high): ${question}`,
    'the question reads as the agent wrote it',
  );
  t.equal(
    shown(turn!).split('\n')[1],
    'pinged <!channel|channel> and @all &amp; <https://x.example|x>',
    'the summary reads as written',
  );
  t.match(asked!, /^human_asked · ada\n/, 'the headline is the project’s own text, unchanged');
  t.match(asked!, /a@b\.io/, 'an address in the text is left whole');
});
