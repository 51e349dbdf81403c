/**
 * Admission rules: what a NEW write must satisfy, while a stored revision being reloaded or reverted
 * is only warned about (spec write rule 9: reload and revert check runnable rules only). Each marks
 * a document the engine can still run but that no operator should create on purpose:
 *
 * (A1, a seat `token_budget` above the org's, was dropped: the spec has no such rule, and it kept an
 *  operator from setting an emergency org cap below a seat's. Both caps are counted; the lower refuses.)
 * A2. An enabled `target: lead` schedule whose scope has no lead (none written or inherited, or the
 *     lead names no single seat): it would fire for nobody.
 * A3. A seat or unit `mcp_env` keyed by a tool-server name `mcp_servers` does not define, or by a
 *     shared one (one process for every seat, started with the entry's `env` only): the credentials
 *     reach no server (typically left behind when a server was removed, renamed or made shared).
 * A4. An unpinned agent seat that cannot resolve a provider although providers exist, because
 *     `providers.llm_order` is written as an empty list (absent, every provider is tried in order).
 * A5. A credential (any secret leaf, see isSecretPath) written as an empty string: the integration
 *     or provider it belongs to fails closed at run time.
 * A6. A schedule whose literal `cron` has the shape of one but that cron-parser refuses (`61 8 * * 1`,
 *     `MONDAY-FRI`) or that never occurs (`0 0 31 2 *`): it would never fire. A stored revision that
 *     carries one still loads (its schedule shows `next_run: ""`), so an upgrade never strands it.
 *     Also a step wider than its field (`*\/60` minutes): cron reads it as the field's first value alone,
 *     so it fires at another cadence than written; a stored one keeps firing as cron reads it.
 * A7. A `turn_engine` round limit or step written as 0: the turn engine reads it as unset and runs its
 *     default (ops/turn-engine.md "Limits"), so the 0 written would silently mean 16, 32, 40 or 8.
 * A8. An agent seat's `sandbox` without a `default_coding_agent` (or a blank one): the seat gets no
 *     sandbox at all (`run_sandbox` is offered only with a coding agent), so its `setup` and `env` do nothing.
 * A9. A vendor id (`cloud_id`, codehost-b's `group`, tracker-b's `workspace` and `username_prefix`, `relay_app_id`) written
 *     without a `${VAR}` and outside its vendor's shape (vendor-ids.ts): spliced into a vendor URL, it
 *     would reach another path than meant, or none. A stored one still loads; its pass fails and says why.
 * A10. An integration site URL or a remote tool-server URL carrying a login (`https://user:password@host`):
 *     their clients call with fetch, which refuses such a URL on every call, and the credential belongs in
 *     the block's own field. Reads show it with the password redacted. An admission rule, not a shape
 *     check, so a revision an earlier release stored with one still boots, applies and reloads. Likewise a
 *     credential in the query of one of these URLs or of a provider `base_url` (`?private_token=`,
 *     `?api_key=`, `?sig=`, url-query-credential.ts) written literally: reads mask it as a password; its
 *     value goes in a `${VAR}` reference or in the block's credential field.
 * A11. `notification_coalesce_window_seconds` above an hour: every notification wake would wait that long
 *     before its seat sees it, which is a delay, not a batch.
 * A12. A schedule `name` longer than a handle (64), or holding a control character or a lone surrogate: the
 *     name is the schedule's identity in ledger rows, feed lines and the dashboard, read by people, so it is
 *     a short line of text (any other character is fine: firing claims and wake ids hash it).
 * A13. A company, unit or seat `name` longer than 100 characters, or a tool-server `name` or provider key
 *     longer than 64 (admission-names.ts): names people read and entity routes address. Length only.
 * A14. A notification transport's or an extension's name (a map key, as a provider key) longer than 64, a
 *     native project's display name (`integrations.work.name`, the unit's name when unset) longer than 100,
 *     or any of them holding a control character or a lone surrogate (admission-names.ts).
 * A15. A `skill_variables` name outside a `{{name}}` placeholder's grammar (`wiki-base-url`): no skill can
 *     name it, so it is never filled (admission-names.ts).
 * A16. A `notification_rate_limit` that is not a whole number: it counts notifications a minute, and the
 *     router's window reads 2.5 as 3 and 0.5 as 1. Not a shape check, so a stored one still loads.
 * A17. A redaction marker outside a secret leaf, typically in a free settings map (admission-markers.ts).
 * A18..A20. A tool-server entry that can never run as written (admission-toolservers.ts): `args` on a remote
 *     entry, a NUL in what a process is started with or an env name it would misread, a url naming no host.
 *     A19 holds a seat's `sandbox.env` too: the sandbox's process is started with it.
 * A21. A provider entry's `api_keys` listing one key (a `${VAR}` reference or a literal) twice
 *     (admission-providers.ts): the pool would try the same key twice in one call.
 * A22. An integration site `url` or a provider `base_url` (LLM or embeddings) naming no host (`http:///x`, read
 *     by URL parsers as host `x`; a tool server's url is A20): every call would go to another host than meant.
 */
import { cronProblem, cronStepProblem } from '../schedules/time.js';
import { markerRules } from './admission-markers.js';
import { nameRules } from './admission-names.js';
import { providerKeyRules } from './admission-providers.js';
import { envRules, NO_HOST_MESSAGE, toolServerRules } from './admission-toolservers.js';
import { leadSeat } from './derived.js';
import { cutForQuote, hasControlOrLoneSurrogate } from '../text-grammars.js';
import { carriesLogin, emptyHost, hasRef, isCron, isHttpUrl, MAX_SCHEDULE_NAME } from './fields.js';
import { ProblemKind, type Segment } from './problems.js';
import { asList, asString, type RuleContext } from './rule-context.js';
import { scheduleScopes } from './rules-seats.js';
import { isSecretPath, stringLeaves } from './secret-paths.js';
import { vendorIdPaths, vendorIdProblem } from './vendor-ids.js';
import { queryCredentialNames } from '../document/url-query-credential.js';
import { isRecord } from './walk.js';

/** The value at `segments` of a document, undefined where the path breaks off. */
const valueAtPath = (doc: unknown, segments: readonly string[]): unknown =>
  segments.reduce<unknown>((at, key) => (isRecord(at) ? at[key] : undefined), doc);

/** A URL admission rule A10 reads: where, its value, and the field its credential belongs in. */
type FetchedUrl = [Segment[], unknown, string];

/** The URLs admission rule A10 reads, with their values: integration sites and remote tool servers. */
const fetchedUrls = (doc: Record<string, unknown>): FetchedUrl[] => [
  ...['tracker_a', 'wiki', 'codehost_b', 'tracker_b'].map((block): FetchedUrl => {
    const segments = ['integrations', block, 'url'];
    return [segments, valueAtPath(doc, segments), 'the block’s own token field'];
  }),
  ...asList(doc['mcp_servers']).map((server, i): FetchedUrl => [
    ['mcp_servers', i, 'url'],
    isRecord(server) ? server['url'] : undefined,
    'the server’s headers',
  ]),
];

/**
 * Provider base URLs, which A10 reads for a query credential only: the client appends its path to the
 * base (a query there breaks every call anyway), and the key has its own field.
 */
const baseUrls = (doc: Record<string, unknown>): FetchedUrl[] => {
  const llm = valueAtPath(doc, ['providers', 'llm']);
  return [
    ...Object.entries(isRecord(llm) ? llm : {}).map(([key, entry]): FetchedUrl => [
      ['providers', 'llm', key, 'base_url'],
      isRecord(entry) ? entry['base_url'] : undefined,
      'the provider’s api_keys',
    ]),
    [
      ['providers', 'embeddings', 'base_url'],
      valueAtPath(doc, ['providers', 'embeddings', 'base_url']),
      'the embeddings api_key',
    ],
  ];
};

/** The longest notification batching window (A11), in seconds. */
export const MAX_COALESCE_WINDOW_SECONDS = 3600;

/** Why a schedule name breaks A12, or null; never quotes the name. */
function scheduleNameProblem(name: string): { kind: ProblemKind; message: string } | null {
  if (name.length > MAX_SCHEDULE_NAME)
    return { kind: ProblemKind.OutOfRange, message: `at most ${MAX_SCHEDULE_NAME} characters` };
  if (hasControlOrLoneSurrogate(name))
    return { kind: ProblemKind.Shape, message: 'one line of text: no control characters or lone surrogates' };
  return null;
}

/** Turn-engine fields where 0 would read as unset (actors/seat/seat.limits.ts). */
const roundLimits = [
  'max_tool_rounds',
  'plan_max_tool_rounds_ceiling',
  'execute_max_tool_rounds_ceiling',
  'extension_round_step',
] as const;

export function admissionRules(ctx: RuleContext): void {
  const providers = isRecord(ctx.doc['providers']) ? ctx.doc['providers'] : {};
  const llm = isRecord(providers['llm']) ? providers['llm'] : {};
  const order = providers['llm_order'];
  /** Tool-server name -> whether it runs one process per seat (`shared: false`); the first entry of a name. */
  const perSeat = new Map<string, boolean>();
  for (const s of asList(ctx.doc['mcp_servers'])) {
    const name = isRecord(s) ? asString(s['name']) : null;
    if (isRecord(s) && name !== null && !perSeat.has(name)) perSeat.set(name, s['shared'] === false);
  }
  const mcpEnvRule = (raw: Record<string, unknown>, segments: (string | number)[]): void => {
    const env = raw['mcp_env'];
    if (!isRecord(env)) return;
    for (const server of Object.keys(env)) {
      const at = [...segments, 'mcp_env', server];
      const own = perSeat.get(server);
      if (own === undefined) {
        ctx.admission(at, ProblemKind.UnknownValue, 'names no tool server in mcp_servers');
      } else if (!own) {
        ctx.admission(
          at,
          ProblemKind.Conflict,
          'names a shared tool server: its one process starts with the entry’s env only, so these values reach nothing; set shared: false on it for one process per seat',
        );
      }
    }
  };

  for (const seat of ctx.walk.seats) {
    if (seat.kind !== 'agent') continue;
    // A3
    mcpEnvRule(seat.raw, seat.segments);
    // A8
    const sandbox = seat.raw['sandbox'];
    const agent = isRecord(sandbox) ? sandbox['default_coding_agent'] : undefined;
    if (isRecord(sandbox) && (agent === undefined || (typeof agent === 'string' && agent.trim() === ''))) {
      ctx.admission(
        [...seat.segments, 'sandbox', 'default_coding_agent'],
        ProblemKind.Missing,
        'a sandbox needs the coding agent it runs; without one the seat is offered no sandbox and setup and env do nothing',
      );
    }
    // A19 on the sandbox's env
    if (isRecord(sandbox)) envRules(ctx, [...seat.segments, 'sandbox', 'env'], sandbox['env']);
    // A4
    if (
      seat.raw['llm'] === undefined &&
      Object.keys(llm).length > 0 &&
      Array.isArray(order) &&
      order.length === 0
    ) {
      ctx.admission(
        [...seat.segments, 'llm'],
        ProblemKind.Missing,
        'no provider resolves: providers.llm_order is empty; pin llm or list providers in llm_order',
      );
    }
  }
  for (const unit of ctx.walk.units) mcpEnvRule(unit.raw, unit.segments);
  // A13, A14
  nameRules(ctx);
  // A17
  markerRules(ctx);
  // A18, A19, A20
  toolServerRules(ctx);
  // A21
  providerKeyRules(ctx);

  for (const scope of scheduleScopes(ctx)) {
    scope.list.forEach((schedule, i) => {
      // A12 (an empty name is the shape check's)
      const name = isRecord(schedule) ? schedule['name'] : undefined;
      const wrongName = typeof name === 'string' ? scheduleNameProblem(name) : null;
      if (wrongName !== null)
        ctx.admission([...scope.segments, i, 'name'], wrongName.kind, wrongName.message);
      // A6 (the shape check has refused what is not cron-like; a `${VAR}` is checked when applied)
      const cron = isRecord(schedule) ? schedule['cron'] : undefined;
      if (typeof cron === 'string' && !hasRef(cron) && isCron(cron)) {
        // The timezone cannot make an expression parse or fail; an unknown one is its own problem.
        const why = cronProblem(cron, 'UTC') ?? cronStepProblem(cron);
        if (why !== null) ctx.admission([...scope.segments, i, 'cron'], ProblemKind.Invalid, why);
      }
      // A2
      if (!isRecord(schedule) || schedule['target'] !== 'lead' || schedule['enabled'] === false) return;
      const lead = scope.leadUnit?.lead ?? null;
      if (leadSeat(ctx.walk, lead) === null) {
        ctx.admission(
          [...scope.segments, i, 'target'],
          ProblemKind.Conflict,
          `an enabled lead target needs a lead, and ${
            lead === null
              ? 'this scope has none (set lead on the unit or an ancestor)'
              : 'the lead of this scope names no single seat (see its dangling_reference warning)'
          }`,
        );
      }
    });
  }

  // A7
  const turnEngine = ctx.doc['turn_engine'];
  if (isRecord(turnEngine)) {
    for (const field of roundLimits) {
      if (turnEngine[field] === 0) {
        ctx.admission(
          ['turn_engine', field],
          ProblemKind.OutOfRange,
          'must be at least 1; leave it out for the default',
        );
      }
    }
  }

  // A9
  for (const { field, segments } of vendorIdPaths) {
    const value = valueAtPath(ctx.doc, segments);
    if (typeof value !== 'string' || hasRef(value)) continue;
    const wrong = vendorIdProblem(field, value);
    if (wrong !== null)
      ctx.admission(
        segments,
        wrong.kind === 'shape' ? ProblemKind.Shape : ProblemKind.OutOfRange,
        wrong.message,
      );
  }

  // A10
  for (const [segments, value] of fetchedUrls(ctx.doc)) {
    if (typeof value !== 'string' || hasRef(value) || !carriesLogin(value)) continue;
    ctx.admission(
      segments,
      ProblemKind.Invalid,
      'an http(s) URL without a login (user:password@); the credential goes in its own field',
    );
  }
  for (const [segments, value, field] of [...fetchedUrls(ctx.doc), ...baseUrls(ctx.doc)]) {
    const names = typeof value === 'string' ? queryCredentialNames(value) : [];
    if (names.length === 0) continue;
    ctx.admission(
      segments,
      ProblemKind.Invalid,
      `a credential in the URL's query (${names.map((n) => `${cutForQuote(n)}=`).join(', ')}) reads back to anyone who reads the URL; write its value as a \${VAR} reference, or put it in ${field}`,
    );
  }

  // A22 (a tool server's url is A20's)
  for (const [segments, value] of [...fetchedUrls(ctx.doc), ...baseUrls(ctx.doc)]) {
    if (segments[0] === 'mcp_servers' || typeof value !== 'string') continue;
    if ((hasRef(value) || isHttpUrl(value)) && emptyHost(value))
      ctx.admission(segments, ProblemKind.Invalid, NO_HOST_MESSAGE);
  }

  // A11
  const window = ctx.doc['notification_coalesce_window_seconds'];
  if (typeof window === 'number' && window > MAX_COALESCE_WINDOW_SECONDS) {
    ctx.admission(
      ['notification_coalesce_window_seconds'],
      ProblemKind.OutOfRange,
      `at most ${MAX_COALESCE_WINDOW_SECONDS} (an hour): each notification wake waits out the window before its seat sees it`,
    );
  }

  // A16
  const rateLimit = ctx.doc['notification_rate_limit'];
  if (typeof rateLimit === 'number' && !Number.isInteger(rateLimit)) {
    ctx.admission(
      ['notification_rate_limit'],
      ProblemKind.Shape,
      'a whole number of notifications a minute (0 or absent: no limit)',
    );
  }

  // A5
  for (const [segments, value] of stringLeaves(ctx.doc)) {
    if (value.trim() === '' && isSecretPath(segments)) {
      ctx.admission(segments, ProblemKind.OutOfRange, 'a credential must not be empty');
    }
  }
}
