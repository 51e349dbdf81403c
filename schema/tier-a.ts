/**
 * Tier A: the bootstrap file read once at boot (spec "Tier A bootstrap file"). Restart-only and owned
 * by operations, so it is strict: an unknown key is a typo until proven otherwise, and every problem
 * is reported at once with its path, line and column.
 */
import { isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument, type YAMLError, type YAMLWarning } from 'yaml';
import { z } from 'zod';
import { keysOfSchemaAt } from './company/known-keys.js';
import { yamlPositions } from './company/yaml-lines.js';
import { closestName } from './did-you-mean.js';
import { listRefs, substituteDeep } from './env-refs.js';
import { findingsOf } from './company/problems.js';
import { formatIssuePath, type Problem } from './problems.js';
import { crossCheck } from './tier-a.checks.js';
import {
  NODE_ID,
  nodeIdGrammar,
  numberText,
  QueueType,
  SandboxIsolation,
  SandboxNetwork,
  valueAt,
} from './tier-a.shared.js';

export const NodeRole = { Ingress: 'ingress', Data: 'data', Seats: 'seats' } as const;
export type NodeRole = (typeof NodeRole)[keyof typeof NodeRole];
const allRoles: NodeRole[] = Object.values(NodeRole);

/** Flags also read from text, as numbers are (numberText): `debug: ${DEBUG}` substitutes to "true". */
const flagText = (value: unknown): unknown => (value === 'true' ? true : value === 'false' ? false : value);
const whole = (min: number, max: number) => z.preprocess(numberText, z.number().int().min(min).max(max));
const flag = z.preprocess(flagText, z.boolean());

const port = whole(0, 65535);
const tokenId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/, 'token id: letters, digits, . _ @ - (max 128)');

const Queue = z.strictObject({
  type: z
    .enum([QueueType.Memory, QueueType.JetStream, QueueType.JetStreamEmbedded])
    .default(QueueType.Memory),
  url: z.string().min(1).optional(),
  auth_token: z.string().optional(),
  /** Copies of every stream and bucket on a JetStream cluster (NATS allows 1 to 5). */
  replicas: whole(1, 5).default(1),
});

const Auth = z.strictObject({
  tokens: z.array(z.strictObject({ id: tokenId, token: z.string() })).default([]),
  disabled: flag.default(false),
  allow_anonymous_read: flag.default(true),
  company_writers: z.array(tokenId).optional(),
});

const SecretKey = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'key id: letters, digits, _ and - (max 64)'),
  material: z.string(),
});

const Backend = z.strictObject({ backend: z.enum(['native']).optional() });

const Sandbox = z.strictObject({
  isolation: z
    .enum([SandboxIsolation.Process, SandboxIsolation.Bubblewrap])
    .default(SandboxIsolation.Process),
  network: z.enum([SandboxNetwork.Host, SandboxNetwork.None]).default(SandboxNetwork.Host),
});

export const TierAFile = z.strictObject({
  debug: flag.default(false),
  providers: z
    .strictObject({
      queue: Queue.default({ type: QueueType.Memory, replicas: 1 }),
      database: z.strictObject({ dsn: z.string() }).optional(),
      knowledge: z.strictObject({ type: z.string() }).optional(),
    })
    .default({ queue: { type: QueueType.Memory, replicas: 1 } }),
  api: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: port.default(8080),
      public: z.strictObject({ port }).optional(),
      auth: Auth.optional(),
    })
    .default({ host: '127.0.0.1', port: 8080 }),
  secrets: z
    .strictObject({ active_key_id: z.string().optional(), keys: z.array(SecretKey).default([]) })
    .optional(),
  node: z
    .strictObject({
      id: z.string().regex(NODE_ID, nodeIdGrammar).optional(),
      roles: z
        .array(z.enum([NodeRole.Ingress, NodeRole.Data, NodeRole.Seats]))
        .min(1)
        .optional(),
      /** How long a seat lease binds without renewal (ops/fleet.md: renewal a third, fence margin a sixth). */
      seat_lease_seconds: whole(3, 600).default(30),
      /**
       * On a stop, how long running turns may finish before they are cut and handed over
       * (ops/turn-engine.md "Drain"), and a config apply in progress before it is cut (ops/config.md); 0
       * hands them over at once.
       */
      turn_grace_seconds: whole(0, 600).default(10),
      /** Free-form labels shown by `GET /fleet` (zone, rack, purpose); nothing in svc reads them. */
      labels: z
        .record(
          z
            .string()
            .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'label name: letters, digits, . _ - (max 63)'),
          z.string().max(256),
        )
        .optional(),
    })
    .default({ seat_lease_seconds: 30, turn_grace_seconds: 10 }),
  stream: z.strictObject({ store_dir: z.string().min(1).optional() }).default({}),
  /** The compaction of the webhook arrival records (ops/webhooks.md "Compaction"); the same on every node. */
  webhooks: z
    .strictObject({
      compaction: z
        .strictObject({
          /** Arrival records folded since the newest rollup that make a compaction due. */
          threshold: whole(10, 1_000_000).default(1_000),
          /** How often a node looks whether a compaction is due. */
          every_seconds: whole(1, 3_600).default(60),
        })
        .default({ threshold: 1_000, every_seconds: 60 }),
    })
    .default({ compaction: { threshold: 1_000, every_seconds: 60 } }),
  tracker: Backend.default({}),
  knowledge: Backend.default({}),
  sandbox: Sandbox.default({ isolation: SandboxIsolation.Process, network: SandboxNetwork.Host }),
});
type TierAFileOut = z.output<typeof TierAFile>;

/** The resolved bootstrap configuration: references substituted, fallbacks applied, paths absolute. */
export interface TierA extends Omit<TierAFileOut, 'node'> {
  readonly node: {
    readonly id: string;
    readonly roles: readonly NodeRole[];
    readonly seat_lease_seconds: number;
    readonly turn_grace_seconds: number;
    readonly labels?: Readonly<Record<string, string>>;
  };
  /** Absolute path of the file it came from, or null when built from text. */
  readonly file: string | null;
}

export type TierAResult = { ok: true; config: TierA } | { ok: false; problems: Problem[] };

export interface LoadOptions {
  /** Environment for `${VAR}` references and `SVC_NODE_ID`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative `stream.store_dir` resolves against this directory (the process's working directory). */
  readonly cwd: string;
  /**
   * A command run with the node stopped (replay, restore, projections): it serves no token, so one whose
   * reference resolves empty is not refused — the operator's shell need not hold the node's API tokens.
   */
  readonly offline?: boolean;
}

/** Validates Tier A YAML text; every problem carries the line and column it points at. */
export function parseTierA(text: string, opts: LoadOptions): TierAResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, lineCounter });
  if (doc.errors.length > 0) return { ok: false, problems: syntaxProblems(doc.errors, lineCounter) };
  const tags = unknownTagProblems(doc.warnings, lineCounter);
  if (tags.length > 0) return { ok: false, problems: tags };
  const raw: unknown = doc.toJS() ?? {};
  const resolveRef = (name: string): string | undefined => opts.env[name];
  const substituted = substituteDeep(raw, resolveRef);
  const parsed = TierAFile.safeParse(substituted);
  const related = crossCheck(substituted, raw, opts.offline === true, opts.env['SVC_NODE_ID']);
  const at = yamlPositions(text);
  const placed = (problem: Problem, segments: ReadonlyArray<string | number>): Problem => {
    const position = at(segments);
    return position ? { ...problem, line: position.line, column: position.column } : problem;
  };
  const placedRelated = related.map((p) => placed(p, segmentsOf(p.path)));
  if (!parsed.success) {
    const shape = parsed.error.issues.flatMap((issue) => {
      const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
      return issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) =>
            placed({ path: formatIssuePath([...path, key]), message: unknownKeyMessage(key, path) }, [
              ...path,
              key,
            ]),
          )
        : // The company document's wording (`expected a number, got a string`), not zod's.
          [
            placed(
              {
                path: formatIssuePath(path),
                message: `${findingsOf(issue, substituted)[0]!.message}${fromReference(raw, substituted, path)}`,
              },
              path,
            ),
          ];
    });
    const named = new Set(shape.map((p) => p.path));
    return {
      ok: false,
      problems: inFileOrder([...shape, ...placedRelated.filter((p) => !named.has(p.path))]),
    };
  }
  if (related.length > 0) return { ok: false, problems: inFileOrder(placedRelated) };
  return { ok: true, config: finish(parsed.data, opts) };
}

/** Problems as an editor meets them: by line and column, those without a place (a missing key) last. */
function inFileOrder(problems: Problem[]): Problem[] {
  const at = (p: Problem): number =>
    p.line === undefined ? Number.MAX_SAFE_INTEGER : p.line * 100_000 + (p.column ?? 0);
  return problems.sort((a, b) => at(a) - at(b));
}

/**
 * One problem per syntax error: after a first error the parser reports the same mistake again from
 * where it resynchronised (a bad indent is also "nested mappings" and "multiline key" on that line),
 * so an error on the line of, or inside the span of, the last one kept is its echo and is dropped.
 */
function syntaxProblems(errors: readonly YAMLError[], lines: LineCounter): Problem[] {
  const problems: Problem[] = [];
  let last: { line: number; end: number } | null = null;
  for (const error of [...errors].sort((a, b) => a.pos[0] - b.pos[0])) {
    const { line, col } = lines.linePos(error.pos[0]);
    if (last !== null && (line === last.line || error.pos[0] < last.end)) continue;
    last = { line, end: error.pos[1] };
    // The first line of the parser's message names the mistake; later lines quote the source.
    const reason = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    problems.push({ path: '', message: `YAML: ${reason}`, line, column: col });
  }
  return problems;
}

/**
 * The parser reads a value behind a tag it does not know as what follows the tag (`token: !Pa55` as '',
 * `!Pa55 word` as `word`), so an unquoted token starting with `!` would start the node with another one.
 * Refused at its line; the tag is never quoted, since it may be the credential.
 */
function unknownTagProblems(warnings: readonly YAMLWarning[], lines: LineCounter): Problem[] {
  return warnings
    .filter((warning) => warning.code === 'TAG_RESOLVE_FAILED')
    .map((warning) => {
      const { line, col } = lines.linePos(warning.pos[0]);
      const message = 'YAML: a tag (`!name`) this file cannot hold; quote a value that starts with `!`';
      return { path: '', message, line, column: col };
    });
}

/** `api.auth.tokens[0].token` → `['api', 'auth', 'tokens', 0, 'token']` (paths the checks below write). */
function segmentsOf(path: string): Array<string | number> {
  return path
    .split(/\.|(?=\[)/)
    .filter((part) => part !== '')
    .map((part) => (/^\[\d+\]$/.test(part) ? Number(part.slice(1, -1)) : part));
}

/** `unknown key`, with the nearest key the file allows there: `unknown key; did you mean \`port\`?`. */
function unknownKeyMessage(key: string, at: ReadonlyArray<string | number>): string {
  const known = keysOfSchemaAt(TierAFile, at);
  const near = known === 'any' ? null : closestName(key, known);
  return near === null ? 'unknown key' : `unknown key; did you mean \`${near}\`?`;
}

function finish(file: TierAFileOut, opts: LoadOptions): TierA {
  const envNodeId = opts.env['SVC_NODE_ID'];
  const storeDir = file.stream.store_dir;
  return {
    ...file,
    node: {
      id: file.node.id ?? (envNodeId || 'node-0'),
      roles: file.node.roles ?? allRoles,
      seat_lease_seconds: file.node.seat_lease_seconds,
      turn_grace_seconds: file.node.turn_grace_seconds,
      ...(file.node.labels ? { labels: file.node.labels } : {}),
    },
    stream: {
      store_dir: storeDir === undefined || isAbsolute(storeDir) ? storeDir : resolve(opts.cwd, storeDir),
    },
    file: null,
  };
}

/**
 * ` (from ${PORT}, unset or empty)` when the value at `path` was written as a `${VAR}` reference: the variable,
 * not the text the file shows, is what to fix. Never the value.
 */
function fromReference(raw: unknown, substituted: unknown, path: ReadonlyArray<string | number>): string {
  const written = valueAt(raw, path);
  const refs = typeof written === 'string' ? listRefs(written) : [];
  if (refs.length === 0 && typeof written === 'string') return unsubstituted(written);
  if (refs.length === 0) return '';
  const value = valueAt(substituted, path);
  const empty = typeof value === 'string' && value.trim() === '';
  return ` (from ${refs.map((r) => `\${${r}}`).join(', ')}${empty ? ', unset or empty' : ''})`;
}

/**
 * A value written as a reference the file does not substitute (only the braced `${NAME}` is): a bare
 * `$PORT` names the form to write, a shell form (`${PORT:-8080}`, an unclosed brace) what is not read.
 * Said only beside a value of the wrong kind (a number, a flag), never a string that may be a credential.
 */
function unsubstituted(written: string): string {
  const bare = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(written.trim());
  if (bare) return ` (\`$${bare[1]}\` is not substituted: write \`\${${bare[1]}}\`)`;
  if (written.includes('${')) return ' (only `${NAME}` is substituted: no default, no other shell form)';
  return '';
}
