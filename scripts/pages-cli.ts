/**
 * `svc pages <verb>`: the native knowledge base from a terminal, against a running node
 * (ops/knowledge-base.md). Every verb is one request; answers print as JSON. A page body comes from a
 * file or stdin.
 */
import { readFileSync } from 'node:fs';
import { helpExit, nodeContext, nodeFlagsHelp, parseNodeArgs, refuseOtherVerbsFlags } from './cli-args.js';
import { callJson, queryOf } from './cli-json.js';
import { intFlag, opIdFlag, searchFlag, titleFlag } from './cli-flags.js';
import { unknownVerb } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';
import { PAGE_TITLE_MAX, queryRanges } from '../schema/index.js';
import { readFailure } from './read-failure.js';

const { pagesLimit } = queryRanges;

export const pagesHelp = `Usage: svc pages <verb> [flags]

Verbs (against a running node with knowledge.backend native; token from $SVC_TOKEN):
  list     [--container C] [--parent P|root] [--limit N] [--cursor C]
                                    pages in container and title order (GET /pages); --cursor is
                                    the answer's next_cursor
  show     REF                      one page with body, comments, children (REF: id or CONTAINER/Title)
  search   WORDS... [--container C] [--limit N]
                                    pages holding every word, best first; with embeddings on,
                                    then pages close in meaning (each row's match says which)
  create   --container C --title T [FILE|-] [--parent P] [--op-id X]
                                    create a page; its body is FILE's text, stdin's with -, else empty
--limit is ${pagesLimit.min} to ${pagesLimit.max} (default ${pagesLimit.fallback}), as the route allows; outside it, search WORDS past
500 characters, or an --op-id (1 to 128 bytes of visible ASCII) or --title (one line, 1 to 255 characters)
outside the route's grammar, is a bad flag (exit 2, nothing sent).

${nodeFlagsHelp}  --op-id X        a write's retry handle: sent again, it answers the first outcome
Exit codes: 0 done; 1 refused (the answer's error code is printed); 2 bad flags.
`;

/** Each verb's own flags, beside --url, --config, --timeout and --help. */
const pagesVerbFlags: Readonly<Record<string, readonly string[]>> = {
  list: ['container', 'parent', 'limit', 'cursor'],
  show: [],
  search: ['container', 'limit'],
  create: ['container', 'title', 'parent', 'op-id'],
};

export async function runPages(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
  stdin: () => Buffer = () => readFileSync(0),
): Promise<number> {
  const { values, positionals } = parseNodeArgs(
    args,
    {
      container: { type: 'string' },
      parent: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      title: { type: 'string' },
      'op-id': { type: 'string' },
    },
    'pages',
    pagesVerbFlags,
  );
  const [verb, ...rest] = positionals;
  const exit = helpExit(pagesHelp, values.help, verb, out, err);
  if (exit !== null) return exit;
  const verbs = ['list', 'show', 'search', 'create'];
  if (!verbs.includes(verb!)) throw unknownVerb('pages', verb!, verbs);
  refuseOtherVerbsFlags('pages', verb!, values, pagesVerbFlags);
  const most = verb === 'search' ? Infinity : verb === 'list' ? 0 : 1;
  if (rest.length > most) throw new UsageError(`unexpected arguments: ${rest.slice(most).join(' ')}`);
  if ((verb === 'show' || verb === 'search') && rest.length === 0)
    throw new UsageError(`svc pages ${verb} needs ${verb === 'show' ? 'REF' : 'WORDS'}`);
  const limit = intFlag('--limit', values.limit, pagesLimit);
  opIdFlag(values['op-id']);
  titleFlag(values.title, PAGE_TITLE_MAX);
  if (verb === 'search') searchFlag('WORDS', rest.join(' '));
  const ctx = await nodeContext(values, env, out, err);
  const call = (method: string, path: string, body?: unknown) => callJson('pages', ctx, method, path, body);
  switch (verb) {
    case 'list':
      return call(
        'GET',
        `/pages${queryOf({ container: values.container, parent: values.parent, limit, cursor: values.cursor })}`,
      );
    case 'show':
      // A `CONTAINER/Title` reference keeps its slash: the route reads the rest of the path.
      return call('GET', `/pages/${rest[0]!.split('/').map(encodeURIComponent).join('/')}`);
    case 'search':
      return call('GET', `/pages${queryOf({ q: rest.join(' '), container: values.container, limit })}`);
    default: {
      if (values.container === undefined || values.title === undefined)
        throw new UsageError('svc pages create needs --container and --title');
      const file = rest[0];
      return call('POST', '/pages', {
        container: values.container,
        title: values.title,
        body: file === undefined ? '' : readBody(file, stdin),
        ...(values.parent === undefined ? {} : { parent: values.parent }),
        ...(values['op-id'] === undefined ? {} : { op_id: values['op-id'] }),
      });
    }
  }
}

function readBody(file: string, stdin: () => Buffer): string {
  try {
    return (file === '-' ? stdin() : readFileSync(file)).toString('utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file === '-' ? 'stdin' : file} ${readFailure(error)}`);
  }
}
