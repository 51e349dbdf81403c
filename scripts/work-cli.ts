/**
 * `svc work <verb>`: the native work tracker from a terminal, against a running node (ops/work-tracker.md).
 * Every verb is one request; answers print as JSON. A comment's text may come from stdin.
 */
import { readFileSync } from 'node:fs';
import { helpExit, nodeContext, nodeFlagsHelp, parseNodeArgs, refuseOtherVerbsFlags } from './cli-args.js';
import { callJson, queryOf } from './cli-json.js';
import { handleFlag, intFlag, oneOfFlag, opIdFlag, searchFlag, shapeFlag, titleFlag } from './cli-flags.js';
import { unknownVerb } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';
import { ITEM_TITLE_MAX, priorities, PROJECT_KEY, queryRanges, workStatuses } from '../schema/index.js';

const { workListLimit, workInboxLimit } = queryRanges;

export const workHelp = `Usage: svc work <verb> [flags]

Verbs (against a running node with tracker.backend native; token from $SVC_TOKEN):
  list     [--project P] [--status S[,S]] [--assignee H] [--q WORDS] [--limit N] [--cursor C]
                                    items, newest first (GET /work); --cursor is the answer's next;
                                    one --assignee (a repeat is a bad flag)
  show     ID                       one item with its thread and history (ID: key or id)
  create   --project P --title T [--description D] [--assignee H]... [--priority P] [--type T]
           [--status S] [--op-id X] create an item; prints it with its key (priority: ${priorities.join(', ')})
  comment  ID [TEXT|-] [--op-id X]  comment on an item; the text from stdin when - or absent
  move     ID STATUS [--op-id X]    move an item to a status (backlog, todo, in_progress, in_review,
                                    done, cancelled)
  inbox    [--unread] [--limit N] [--handle H]
                                    changes by others to your items (the token's person, or H)
  mine     [--handle H]             your my-work lists (or H's)
--limit is ${workListLimit.min} to ${workListLimit.max} (inbox: ${workInboxLimit.min} to ${workInboxLimit.max}), as the routes allow;
outside it, a status or priority the tracker lacks, a --q past 500 characters, or an --op-id, --handle,
--assignee (any case), --project or --title (one line, 1 to 300 characters) outside the route's grammar,
is a bad flag (exit 2, nothing sent).

${nodeFlagsHelp}  --op-id X        a write's retry handle: sent again, it answers the first outcome
Exit codes: 0 done; 1 refused (the answer's error code is printed); 2 bad flags.
`;

/** Each verb's own flags, beside --url, --config, --timeout and --help. */
const workVerbFlags: Readonly<Record<string, readonly string[]>> = {
  list: ['project', 'status', 'assignee', 'q', 'limit', 'cursor'],
  show: [],
  create: ['project', 'title', 'description', 'assignee', 'priority', 'type', 'status', 'op-id'],
  comment: ['op-id'],
  move: ['op-id'],
  inbox: ['unread', 'limit', 'handle'],
  mine: ['handle'],
};

export async function runWork(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
  stdin: () => Buffer = () => readFileSync(0),
): Promise<number> {
  const { values, positionals } = parseNodeArgs(
    args,
    {
      project: { type: 'string' },
      status: { type: 'string' },
      assignee: { type: 'string', multiple: true },
      q: { type: 'string' },
      limit: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      priority: { type: 'string' },
      type: { type: 'string' },
      unread: { type: 'boolean' },
      'op-id': { type: 'string' },
      cursor: { type: 'string' },
      handle: { type: 'string' },
    },
    'work',
    workVerbFlags,
  );
  const [verb, ...rest] = positionals;
  const exit = helpExit(workHelp, values.help, verb, out, err);
  if (exit !== null) return exit;
  const takes: Record<string, [number, number]> = {
    list: [0, 0],
    show: [1, 1],
    create: [0, 0],
    comment: [1, 2],
    move: [2, 2],
    inbox: [0, 0],
    mine: [0, 0],
  };
  // Own keys only: `constructor` is no verb.
  const range = Object.hasOwn(takes, verb!) ? takes[verb!] : undefined;
  if (!range) throw unknownVerb('work', verb!, Object.keys(takes));
  refuseOtherVerbsFlags('work', verb!, values, workVerbFlags);
  if (rest.length < range[0])
    throw new UsageError(`svc work ${verb} needs ${range[0] === 1 ? 'ID' : 'ID STATUS'}`);
  if (rest.length > range[1]) throw new UsageError(`unexpected arguments: ${rest.slice(range[1]).join(' ')}`);
  const id = rest[0] === undefined ? '' : encodeURIComponent(rest[0]);
  const opId = values['op-id'] === undefined ? {} : { op_id: values['op-id'] };
  // What the CLI can judge alone is checked here (cli-flags.ts): exit 2, nothing sent.
  const limit = intFlag('--limit', values.limit, verb === 'inbox' ? workInboxLimit : workListLimit);
  // Exact match: the route's enum takes the slugs as written.
  if (verb === 'move') oneOfFlag('STATUS', rest[1], workStatuses);
  oneOfFlag('--status', verb === 'create' ? values.status : undefined, workStatuses);
  oneOfFlag('--priority', values.priority, priorities);
  // GET /work reads a comma list (blanks skipped, as the route splits it): each one must be a status.
  if (verb === 'list' && values.status !== undefined)
    for (const s of values.status.split(',').map((v) => v.trim()))
      if (s !== '') oneOfFlag('--status', s, workStatuses);
  opIdFlag(values['op-id']);
  handleFlag('--handle', values.handle);
  searchFlag('--q', values.q);
  if (verb === 'create') {
    // As the route reads them: a key in any case, a title trimmed, each assignee a handle in any case.
    shapeFlag(
      '--project',
      values.project,
      (key) => PROJECT_KEY.test(key.toUpperCase()),
      'a project key (a letter, then 1 to 9 letters or digits)',
    );
    titleFlag(values.title, ITEM_TITLE_MAX);
    for (const handle of values.assignee ?? []) handleFlag('--assignee', handle);
  }
  const ctx = await nodeContext(values, env, out, err);
  const call = (method: string, path: string, body?: unknown) =>
    callJson('work', ctx, method, path, body, ['handle']);
  switch (verb) {
    case 'list':
      // GET /work filters by one assignee: joined, several would match no item and exit 0.
      if ((values.assignee?.length ?? 0) > 1)
        throw new UsageError('svc work list takes one --assignee (GET /work filters by one handle)');
      return call(
        'GET',
        `/work${queryOf({
          project: values.project,
          status: values.status,
          assignee: values.assignee?.[0],
          q: values.q,
          limit,
          cursor: values.cursor,
        })}`,
      );
    case 'show':
      return call('GET', `/work/${id}`);
    case 'create': {
      if (values.project === undefined || values.title === undefined)
        throw new UsageError('svc work create needs --project and --title');
      return call('POST', '/work', {
        project: values.project,
        title: values.title,
        ...(values.description === undefined ? {} : { description: values.description }),
        // A person is named in any case (`Ada` is `ada`), as `--handle` is; the body takes the handle itself.
        ...(values.assignee === undefined
          ? {}
          : { assignees: values.assignee.map((handle) => handle.toLowerCase()) }),
        ...(values.priority === undefined ? {} : { priority: values.priority }),
        ...(values.type === undefined ? {} : { type: values.type }),
        ...(values.status === undefined ? {} : { status: values.status }),
        ...opId,
      });
    }
    case 'comment': {
      const text = rest[1] === undefined || rest[1] === '-' ? readStdin(stdin) : rest[1];
      if (text.trim() === '') throw new UsageError('svc work comment needs a text (argument or stdin)');
      return call('POST', `/work/${id}/comments`, { body: text, ...opId });
    }
    case 'move':
      return call('POST', `/work/${id}/move`, { to: rest[1], ...opId });
    case 'inbox':
      return call(
        'GET',
        `/work/inbox${queryOf({
          unread: values.unread ? 'true' : undefined,
          limit,
          handle: values.handle,
        })}`,
      );
    default:
      return call('GET', `/work/my-work${queryOf({ handle: values.handle })}`);
  }
}

function readStdin(stdin: () => Buffer): string {
  try {
    return stdin().toString('utf8');
  } catch {
    throw new UsageError('cannot read stdin');
  }
}
