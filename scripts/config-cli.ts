/**
 * `svc config <verb>`: the configuration routes from a terminal, against a running node. The token
 * comes from SVC_TOKEN (never a flag: flags land in shell history and process listings).
 */
import { readFileSync } from 'node:fs';
import {
  helpExit,
  nodeContext,
  nodeFlagsHelp,
  parseNodeArgs,
  refuseOtherVerbsFlags,
  type NodeContext,
} from './cli-args.js';
import { requestNode } from './cli-http.js';
import { describeRefusal } from './cli-refusal.js';
import { nodeJson } from './cli-shape.js';
import { diffRenderer, resolveRevision, RevisionLookupError } from './config-diff-cli.js';
import { unknownVerb } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';
import { intFlag, oneOfFlag } from './cli-flags.js';
import { queryRanges } from '../schema/index.js';
import { readFailure } from './read-failure.js';

const { revisionsLimit, revisionsOffset } = queryRanges;

/** A header value: non-ASCII text percent-encoded as UTF-8 (the node decodes it; raw bytes do not survive). */
const headerText = (text: string): string => (/[^\x20-\x7e]/.test(text) ? encodeURIComponent(text) : text);

export const configHelp = `Usage: svc config <verb> [flags]

Verbs (against a running node; token from $SVC_TOKEN):
  get        [--format json|yaml]                   the active document, redacted
  put        FILE --summary S [--if-match ID] [--create] [--dry-run]
                                                     replace the document (FILE: JSON or YAML, - for stdin)
  patch      FILE --summary S [--if-match ID] [--dry-run]
                                                     merge patch (RFC 7396), written in JSON or YAML
                                                     (null removes a key)
  validate   FILE                                    dry-run PUT: problems, warnings, derived seats and units
  diff       REVISION [--against REVISION|active] [--format text|yaml|json]
                                                     changes between two revisions, redacted, grouped per
                                                     entity (text, the default) or the route's answer
  revisions  [--limit N] [--offset N]                revision history, newest first (--limit ${revisionsLimit.min} to ${revisionsLimit.max},
                                                     default ${revisionsLimit.fallback}; --offset from ${revisionsOffset.min})
  revert     REVISION [--summary S] [--if-match ID] [--dry-run]
                                                     a new revision equal to REVISION (summary default:
                                                     "revert to REVISION")
  reload     [--summary S] [--if-match ID] [--dry-run]
                                                     re-store the active revision (pushes changed secrets)
  schema                                             the company document's JSON Schema (no node needed)

REVISION (and ID of --if-match) is a revision id or any unique prefix of one (4 characters at least);
--if-match also takes the quoted ETag that GET /config answers with, or *.

${nodeFlagsHelp}
Exit codes: 0 done; 1 refused (the answer's error code and problems are printed), or a REVISION that names
no revision or several; 2 bad flags (a REVISION or --if-match that is not an id or a prefix of one).
`;

export async function runConfig(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
  schema: () => Promise<unknown>,
): Promise<number> {
  const { values, positionals } = parseConfigArgs(args);
  const [verb, target, ...extra] = positionals;
  const exit = helpExit(configHelp, values.help, verb, out, err);
  if (exit !== null) return exit;
  if (!Object.hasOwn(configVerbFlags, verb!))
    throw unknownVerb('config', verb!, Object.keys(configVerbFlags));
  try {
    return await runVerb(verb!, target, extra, values, env, out, err, schema);
  } catch (error) {
    if (!(error instanceof RevisionLookupError)) throw error;
    err.write(`svc config: ${error.message}\n`);
    return 1;
  }
}

type ConfigValues = ReturnType<typeof parseConfigArgs>['values'];

const parseConfigArgs = (args: string[]) =>
  parseNodeArgs(
    args,
    {
      format: { type: 'string' },
      summary: { type: 'string' },
      'if-match': { type: 'string' },
      create: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      against: { type: 'string' },
      limit: { type: 'string' },
      offset: { type: 'string' },
    },
    'config',
    configVerbFlags,
  );

const getFormats = ['json', 'yaml'] as const;
const diffFormats = ['text', 'yaml', 'json'] as const;

/** Each verb's own flags, as its help line lists them. */
const configVerbFlags = {
  get: ['format'],
  put: ['summary', 'if-match', 'create', 'dry-run'],
  patch: ['summary', 'if-match', 'dry-run'],
  validate: [],
  diff: ['against', 'format'],
  revisions: ['limit', 'offset'],
  revert: ['summary', 'if-match', 'dry-run'],
  reload: ['summary', 'if-match', 'dry-run'],
  schema: [],
};

async function runVerb(
  verb: string,
  target: string | undefined,
  extra: string[],
  values: ConfigValues,
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
  schema: () => Promise<unknown>,
): Promise<number> {
  refuseOtherVerbsFlags('config', verb, values, configVerbFlags);
  // Verbs that take no FILE or REVISION refuse one too: `reload extra` must not write a revision.
  const takesNone = ['get', 'revisions', 'reload', 'schema'].includes(verb);
  const unexpected = takesNone && target !== undefined ? [target, ...extra] : extra;
  if (unexpected.length > 0) throw new UsageError(`unexpected arguments: ${unexpected.join(' ')}`);
  // What the CLI can judge alone is checked here (cli-flags.ts): exit 2, nothing sent.
  const limit = intFlag('--limit', values.limit, revisionsLimit);
  const offset = intFlag('--offset', values.offset, revisionsOffset);
  const format = oneOfFlag('--format', values.format, verb === 'diff' ? diffFormats : getFormats);
  if (verb === 'schema') {
    out.write(`${JSON.stringify(await schema(), null, 2)}\n`);
    return 0;
  }
  const ctx = await nodeContext(values, env, out, err);
  const need = (what: string): string => {
    if (!target) throw new UsageError(`svc config ${verb} needs ${what}`);
    return target;
  };
  const summaryHeader = (): Record<string, string> => {
    if (!values.summary && !values['dry-run']) throw new UsageError(`svc config ${verb} needs --summary S`);
    return values.summary ? { 'x-summary': headerText(values.summary) } : {};
  };
  // `--if-match` takes what `revert` takes (a prefix), an ETag as `get` prints it, or `*`; a prefix is
  // resolved here, so a typo is refused instead of storing an inactive revision.
  const preconditions = async (): Promise<Record<string, string> | null> => {
    const given = values['if-match']?.replace(/^(?:W\/)?"(.*)"$/, '$1');
    const id = given === undefined || given === '*' ? given : await resolveRevision(ctx, given);
    if (id === null) return null;
    return {
      ...(id === undefined ? {} : { 'if-match': id === '*' ? '*' : `"${id}"` }),
      ...(values.create ? { 'if-none-match': '*' } : {}),
    };
  };
  const dry = values['dry-run'] ? '?dry_run=true' : '';
  switch (verb) {
    case 'get':
      if (format === 'yaml') return call(ctx, 'GET', '/config?format=yaml', undefined, {}, withNewline);
      return call(ctx, 'GET', '/config');
    case 'put': {
      const file = need('FILE');
      const body = readDocument(file);
      const summary = summaryHeader();
      const conditions = await preconditions();
      if (conditions === null) return 1;
      return call(ctx, 'PUT', `/config${dry}`, body, {
        'content-type': looksYaml(file, body) ? 'application/yaml' : 'application/json',
        ...summary,
        ...conditions,
      });
    }
    case 'patch': {
      const file = need('FILE');
      const patch = await patchBody(file, readInput(file));
      if (!patch.ok) {
        err.write(unreadablePatch(file, patch.problems));
        return 1;
      }
      const body = patch.body;
      const summary = summaryHeader();
      const conditions = await preconditions();
      if (conditions === null) return 1;
      return call(ctx, 'PATCH', `/config${dry}`, body, {
        'content-type': 'application/merge-patch+json',
        ...summary,
        ...conditions,
      });
    }
    case 'validate': {
      const file = need('FILE');
      const body = readDocument(file);
      return call(ctx, 'PUT', '/config?dry_run=true', body, {
        'content-type': looksYaml(file, body) ? 'application/yaml' : 'application/json',
      });
    }
    case 'diff': {
      const to = await resolveRevision(ctx, need('REVISION'));
      // Told once: a node that refused the first listing is not asked (and heard refuse) again.
      if (to === null) return 1;
      const from = values.against
        ? await resolveRevision(ctx, values.against, { activeAllowed: true })
        : 'active';
      if (from === null) return 1;
      const path = `/config/revisions/${encodeURIComponent(to)}/diff?against=${encodeURIComponent(from)}`;
      return call(ctx, 'GET', path, undefined, {}, await diffRenderer(format ?? 'text'));
    }
    case 'revisions': {
      const query = new URLSearchParams();
      if (limit !== undefined) query.set('limit', limit);
      if (offset !== undefined) query.set('offset', offset);
      const qs = query.toString();
      return call(ctx, 'GET', `/config/revisions${qs ? `?${qs}` : ''}`);
    }
    case 'revert': {
      const id = await resolveRevision(ctx, need('REVISION'));
      if (id === null) return 1;
      const conditions = await preconditions();
      if (conditions === null) return 1;
      return call(ctx, 'POST', `/config/revisions/${encodeURIComponent(id)}/revert${dry}`, undefined, {
        'x-summary': headerText(values.summary ?? `revert to ${id}`),
        ...conditions,
      });
    }
    case 'reload': {
      const conditions = await preconditions();
      if (conditions === null) return 1;
      return call(ctx, 'POST', `/config/reload${dry}`, undefined, {
        ...(values.summary ? { 'x-summary': headerText(values.summary) } : {}),
        ...conditions,
      });
    }
    default:
      throw unknownVerb('config', verb, Object.keys(configVerbFlags));
  }
}

function readInput(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file} ${readFailure(error)}`);
  }
}

/**
 * A document to put or validate: an empty one is a mistake (a pipe that gave nothing), refused here rather
 * than sent to be refused 400 by the node.
 */
function readDocument(file: string): string {
  const body = readInput(file);
  if (body.trim() === '')
    throw new UsageError(
      `svc config: ${file === '-' ? 'stdin (-)' : file} is empty: put and validate send a whole company document (nothing was sent)`,
    );
  return body;
}

const looksYaml = (file: string, body: string): boolean => /\.ya?ml$/i.test(file) || !/^\s*[{[]/.test(body);

/**
 * A merge patch is JSON on the wire; one written in YAML is converted (`null` and `~` remove a key). YAML
 * is parsed as the node parses a document (within its limits, problems by line and code only): the YAML
 * parser's own messages quote the source line, and a patch may hold a credential.
 */
async function patchBody(file: string, body: string): Promise<PatchBody> {
  // An empty file is a mistake, not "change nothing": it would store a revision all the same.
  if (body.trim() === '') throw new UsageError(`${file} is empty: a patch names what it changes`);
  if (!looksYaml(file, body)) return { ok: true, body };
  // Loaded only for a YAML patch: the document schema is most of a client command's start-up.
  const { parseCompanyYaml } = await import('../schema/index.js');
  const parsed = parseCompanyYaml(body);
  if (!parsed.ok) return { ok: false, problems: parsed.problems };
  return { ok: true, body: JSON.stringify(parsed.value ?? {}) };
}

type PatchProblem = { path: string; message: string; line?: number | undefined };
type PatchBody = { ok: true; body: string } | { ok: false; problems: readonly PatchProblem[] };

/** The node's refusal shape (describeRefusal), said before anything was sent. */
function unreadablePatch(file: string, problems: readonly PatchProblem[]): string {
  const lines = [`svc config: ${file} is not a readable YAML merge patch (nothing was sent):`];
  for (const problem of problems) {
    const line = problem.line === undefined ? '' : ` (line ${problem.line})`;
    lines.push(`  ${problem.path || '(document)'}${line}: ${problem.message}`);
  }
  return `${lines.join('\n')}\n`;
}

const withNewline = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);

async function call(
  ctx: NodeContext,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
  render?: (text: string) => string,
): Promise<number> {
  const response = await requestNode('config', ctx, method, path, body, headers);
  if (response === null) return 1;
  const text = await response.text();
  if (response.ok) {
    // Printed as it came, once it is JSON (the answer of every route here but GET /config?format=yaml).
    const asJson = (json: string): string => (nodeJson(response.status, json), withNewline(json));
    ctx.out.write((render ?? asJson)(text));
    ctx.err.write(describeWarnings(text));
    return 0;
  }
  ctx.err.write(describeRefusal(response.status, text));
  return 1;
}

/**
 * An accepted write's `warnings[]` on stderr, one line each, so a misspelled `lead:` or `manages:` (a
 * warning by the spec, so the chart can be edited in steps) is not lost inside the JSON on stdout.
 */
export function describeWarnings(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return '';
  }
  const warnings = (parsed as { warnings?: unknown } | null)?.warnings;
  if (!Array.isArray(warnings) || warnings.length === 0) return '';
  const lines = [`svc config: WARNING: ${warnings.length} warning(s) in the accepted document:`];
  for (const warning of warnings as Array<Record<string, unknown>>) {
    const path =
      typeof warning['path'] === 'string' && warning['path'] !== '' ? warning['path'] : '(document)';
    const line = typeof warning['line'] === 'number' ? ` (line ${warning['line']})` : '';
    lines.push(`  ! ${path}${line}: ${String(warning['message'])}`);
  }
  return `${lines.join('\n')}\n`;
}
