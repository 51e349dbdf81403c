/**
 * Vendor payload -> the parts of an inbound notification every router needs: who caused it, what it is
 * about, who it names and mentions. Pure; unknown shapes give empty parts rather than failures.
 */
import { wikiPage, type InboundNotification, type Pipeline, type VendorActor } from '../../schema/index.js';
import { arr, at, compact, isRecord, str } from './json-paths.js';

export type Parsed = Pick<InboundNotification, 'trigger' | 'summary' | 'subject' | 'mentions' | 'named'> & {
  /** chat: the ids of the seat app's own bot user (from `authorizations`), to spot its own events. */
  readonly selfIds?: readonly string[];
};

/**
 * A vendor actor with its fields in the schema's order (id, login, name, email, bot), as `VendorActor.parse`
 * would give them: the notification is not parsed again, and its JSON stays the same bytes.
 */
const actor = (o: {
  readonly id?: string | null;
  readonly login?: string | null;
  readonly name?: string | null;
  readonly email?: string | null;
  readonly bot?: boolean;
}): VendorActor | null => {
  const a = compact({ id: o.id, login: o.login, name: o.name, email: o.email, bot: o.bot }) as VendorActor;
  return a.id !== undefined || a.login !== undefined || a.name !== undefined || a.email !== undefined
    ? a
    : null;
};
const subject = (
  kind: string,
  s: Partial<InboundNotification['subject']>,
): InboundNotification['subject'] => ({
  kind,
  id: s.id ?? null,
  key: s.key ?? null,
  title: s.title ?? null,
  space: s.space ?? null,
  url: s.url ?? null,
});
/** What happened, then its title after a colon when it has one (no dangling `issues opened #1:`). */
const titled = (head: string, title: string | null): string => {
  const text = title?.trim() ?? '';
  return text === '' ? head.trim() : `${head}: ${text}`.trim();
};
const people = (list: unknown[], f: (p: unknown) => VendorActor | null): VendorActor[] =>
  list.map(f).filter((p): p is VendorActor => p !== null);

/** `@handle` / `@login` mentions in plain text (not e-mail addresses). */
export function atMentions(text: string | null): string[] {
  if (text === null) return [];
  return [...text.matchAll(/(?<![\w.@])@([A-Za-z0-9][A-Za-z0-9_.-]{0,63})/g)].map((m) =>
    (m[1] ?? '').replace(/\.+$/, ''),
  );
}
const uniq = (xs: string[]): string[] => [...new Set(xs.filter((x) => x !== ''))];

function trackerA(j: unknown, event: string): Parsed {
  const u = (p: unknown): VendorActor | null =>
    actor({
      id: str(p, 'accountId') ?? str(p, 'key'),
      name: str(p, 'displayName'),
      email: str(p, 'emailAddress'),
      login: str(p, 'name'),
    });
  const body = str(j, 'comment', 'body') ?? str(j, 'issue', 'fields', 'description');
  const jiraMentions = [...(body ?? '').matchAll(/\[~(?:accountid:)?([^\]]+)\]/g)].map((m) => m[1] ?? '');
  const key = str(j, 'issue', 'key');
  return {
    trigger: u(at(j, 'user')) ?? u(at(j, 'comment', 'author')) ?? (str(j, 'atlassianId') ? actor({ id: str(j, 'atlassianId') }) : null),
    summary: titled(`${event || 'tracker-a event'}${key ? ` on ${key}` : ''}`, str(j, 'issue', 'fields', 'summary')),
    subject: subject('issue', { id: str(j, 'issue', 'id'), key, title: str(j, 'issue', 'fields', 'summary'), url: str(j, 'issue', 'self') }),
    mentions: uniq([...jiraMentions, ...atMentions(body)]),
    named: people([at(j, 'issue', 'fields', 'assignee'), at(j, 'issue', 'fields', 'reporter')], u),
  }; // prettier-ignore
}

function chat(j: unknown, event: string): Parsed {
  const e = isRecord(at(j, 'event')) ? at(j, 'event') : j;
  const text = str(e, 'text');
  const user = str(e, 'user') ?? str(j, 'user', 'id') ?? str(j, 'user_id');
  return {
    trigger: actor({ id: user, bot: str(e, 'bot_id') !== null }),
    summary: `chat ${event || 'event'}${text ? `: ${text.slice(0, 200)}` : ''}`,
    subject: subject('message', {
      id: str(e, 'ts') ?? str(e, 'event_ts'),
      key: str(e, 'channel'),
      title: null,
    }),
    // `<@U123>` user mentions (the seat's own bot user among them), and `@handle` as typed.
    mentions: uniq([
      ...[...(text ?? '').matchAll(/<@([A-Z0-9]+)>/g)].map((m) => m[1] ?? ''),
      ...atMentions((text ?? '').replace(/<@[A-Z0-9]+>/g, ' ')),
    ]),
    named: [],
    selfIds: arr(j, 'authorizations')
      .map((a) => str(a, 'user_id'))
      .filter((x): x is string => x !== null),
  };
}

function codehostA(j: unknown, event: string): Parsed {
  const u = (p: unknown): VendorActor | null =>
    actor({ login: str(p, 'login'), id: str(p, 'id'), bot: str(p, 'type') === 'Bot' });
  const item = at(j, 'pull_request') ?? at(j, 'issue');
  const body = str(j, 'comment', 'body') ?? str(item, 'body') ?? str(j, 'review', 'body');
  const number = str(item, 'number');
  const repo = str(j, 'repository', 'full_name');
  return {
    trigger: u(at(j, 'sender')),
    summary: titled(`${event || 'codehost-a event'}${str(j, 'action') ? ` ${str(j, 'action')}` : ''}${repo ? ` in ${repo}` : ''}${number ? ` #${number}` : ''}`, str(item, 'title')),
    subject: subject(at(j, 'pull_request') !== undefined ? 'pull_request' : 'issue', { id: str(item, 'id'), key: number, title: str(item, 'title'), space: repo, url: str(item, 'html_url') }),
    mentions: uniq(atMentions(body)),
    named: people([...arr(item, 'assignees'), ...arr(item, 'requested_reviewers'), at(j, 'requested_reviewer'), at(j, 'assignee')], u),
  }; // prettier-ignore
}

function codehostB(j: unknown, event: string): Parsed {
  const u = (p: unknown): VendorActor | null =>
    actor({ login: str(p, 'username'), id: str(p, 'id'), name: str(p, 'name'), email: str(p, 'email') });
  const attrs = at(j, 'object_attributes');
  const body = str(attrs, 'note') ?? str(attrs, 'description');
  return {
    trigger: u(at(j, 'user')),
    summary: titled(`${event || 'codehost-b event'}${str(attrs, 'action') ? ` ${str(attrs, 'action')}` : ''}`, str(attrs, 'title')),
    subject: subject(event || 'event', { id: str(attrs, 'id'), key: str(attrs, 'iid'), title: str(attrs, 'title'), space: str(j, 'project', 'path_with_namespace'), url: str(attrs, 'url') }),
    mentions: uniq(atMentions(body)),
    named: people([...arr(j, 'assignees'), ...arr(j, 'reviewers')], u),
  }; // prettier-ignore
}

function trackerB(j: unknown, event: string): Parsed {
  const u = (p: unknown): VendorActor | null =>
    actor({
      id: str(p, 'id'),
      name: str(p, 'display_name'),
      email: str(p, 'email'),
      login: str(p, 'username'),
    });
  const data = at(j, 'data');
  const body = str(data, 'comment_stripped') ?? str(data, 'description_stripped');
  return {
    trigger: u(at(j, 'activity', 'actor')),
    summary: titled(`${event || 'tracker-b event'}${str(j, 'action') ? ` ${str(j, 'action')}` : ''}`, str(data, 'name')),
    subject: subject(event || 'item', { id: str(data, 'id'), key: str(data, 'sequence_id'), title: str(data, 'name'), space: str(data, 'project') }),
    mentions: uniq(atMentions(body)),
    named: arr(data, 'assignees').map((a) => (typeof a === 'string' ? actor({ id: a }) : u(a))).filter((p): p is VendorActor => p !== null),
  }; // prettier-ignore
}

function wiki(j: unknown, event: string): Parsed {
  const page = wikiPage(j);
  // The relay's comment event carries the comment as `content` (its page in `content.container`).
  const isComment = at(j, 'comment') !== undefined || str(j, 'content', 'type') === 'comment';
  const body =
    str(j, 'comment', 'body', 'storage', 'value') ??
    str(j, 'comment', 'body') ??
    str(j, 'comment', 'content');
  const riUsers = [...(body ?? '').matchAll(/ri:(?:account-id|userkey|username)="([^"]+)"/g)].map(
    (m) => m[1] ?? '',
  );
  const space =
    str(page, 'spaceKey') ??
    str(page, 'space', 'key') ??
    str(j, 'comment', 'spaceKey') ??
    str(j, 'content', 'space', 'key') ??
    str(j, 'space', 'key');
  const triggerId = str(j, 'userAccountId') ?? str(j, 'atlassianId') ?? str(j, 'user', 'accountId');
  const creator =
    str(page, 'creatorAccountId') ?? str(page, 'creatorName') ?? str(page, 'creator', 'accountId');
  // The relay names a page's creator in `history.createdBy` (account id and, when shared, e-mail).
  const createdBy = at(page, 'history', 'createdBy');
  const named = creator
    ? [{ id: creator, login: creator }]
    : people([createdBy], (p) => actor({ id: str(p, 'accountId'), email: str(p, 'email') }));
  return {
    trigger: actor({ id: triggerId, login: str(j, 'user', 'username') ?? str(j, 'userName') ?? str(j, 'updateTrigger', 'username'), email: str(j, 'user', 'email') }),
    summary: titled(event || 'wiki event', str(page, 'title')),
    subject: subject(isComment ? 'comment' : 'page', { id: str(page, 'id'), title: str(page, 'title'), space, url: str(page, 'self') ?? str(page, '_links', 'webui') }),
    mentions: uniq([...riUsers, ...atMentions(body)]),
    named,
  }; // prettier-ignore
}

function monitor(j: unknown, event: string): Parsed {
  const first = arr(j, 'alerts')[0];
  const name =
    str(j, 'commonLabels', 'alertname') ?? str(first, 'labels', 'alertname') ?? str(j, 'title') ?? 'alert';
  const seat = str(j, 'commonLabels', 'seat') ?? str(first, 'labels', 'seat');
  const message =
    str(j, 'message') ?? str(j, 'commonAnnotations', 'summary') ?? str(first, 'annotations', 'summary');
  return {
    trigger: null,
    summary: `monitor ${event || 'alert'}: ${name}${message ? ` — ${message.slice(0, 200)}` : ''}`,
    subject: subject('alert', { id: str(j, 'groupKey'), title: name }),
    mentions: uniq(atMentions(message)),
    named: seat ? [{ login: seat }] : [],
  };
}

const parsers: Record<Pipeline, (json: unknown, event: string) => Parsed> = {
  'tracker-a': trackerA,
  chat,
  'codehost-a': codehostA,
  'codehost-b': codehostB,
  'tracker-b': trackerB,
  wiki,
  monitor,
};

export function parseDelivery(pipeline: Pipeline, json: unknown, event: string): Parsed {
  return parsers[pipeline](json, event);
}
