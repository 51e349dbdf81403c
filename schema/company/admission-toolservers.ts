/**
 * Admission rules A18..A20 (admission.ts): a tool-server entry that can never run as written. Admission rules,
 * not shape checks, so a revision an earlier release stored with one still boots, applies and reloads (the
 * server then runs as before, or fails with backoff, naming the field).
 *
 * A18. `args` on a remote (`url`) entry: only a process takes arguments, so they were ignored in silence
 *      (`headers` on a local entry is refused as a conflict). `env` on a remote entry is not ignored: it fills
 *      the `${VAR}` references of its url and headers (ops/tool-servers.md).
 * A19. A NUL in a local entry's `command`, an argument or an env value (the entry's `env`, a seat's or unit's
 *      `mcp_env`; a seat's `sandbox.env` too, which admission.ts checks with envRules): spawn refuses it, so
 *      the process never starts. An env name that is empty or holds `=` or NUL: the child reads `A=B` with
 *      value `v` as `A` = `B=v`, and `=v` or a NUL as nothing it can use. The names are a key
 *      rule (the problem sits on the map, never quoting the name; ratchet.ts holds it by name).
 * A20. A remote `url` whose host is empty (`http:///mcp`): `new URL` reads the first path segment as the
 *      host, so the server is looked up as `mcp`. A `${VAR}` elsewhere in the url does not fill the host.
 */
import { emptyHost, hasRef, isHttpUrl } from './fields.js';
import { ProblemKind, type Segment } from './problems.js';
import { asList, type RuleContext } from './rule-context.js';
import { isRecord } from './walk.js';

/** A20, and A22 on the other URLs a client fetches (admission.ts). */
export const NO_HOST_MESSAGE =
  'names no host: nothing between // and the path (an unset ${VAR} there leaves the same)';

const NUL_MESSAGE = 'holds a NUL character, which no process can be started with';

/** A19 on env names: the map's keys, as admission-names.ts's key rules, wherever an env map sits. */
export const envNameRule = {
  kind: ProblemKind.Invalid,
  message:
    'an env name is not empty and holds no = or NUL: the process reads A=B with value v as A set to B=v',
  offends: (name: string): boolean => name === '' || name.includes('=') || name.includes('\0'),
} as const;

/** A19 on an env map a child process is started with (a tool server's, a seat's `sandbox.env`). */
export function envRules(ctx: RuleContext, segments: Segment[], env: unknown): void {
  if (!isRecord(env)) return;
  if (Object.keys(env).some(envNameRule.offends))
    ctx.admission(segments, envNameRule.kind, envNameRule.message);
  for (const [name, value] of Object.entries(env))
    if (typeof value === 'string' && value.includes('\0'))
      ctx.admission([...segments, name], ProblemKind.Invalid, NUL_MESSAGE);
}

export function toolServerRules(ctx: RuleContext): void {
  asList(ctx.doc['mcp_servers']).forEach((server, i) => {
    if (!isRecord(server)) return;
    const at = (...rest: Segment[]): Segment[] => ['mcp_servers', i, ...rest];
    const remote = server['url'] !== undefined && server['command'] === undefined;
    // A18
    if (remote && server['args'] !== undefined)
      ctx.admission(
        at('args'),
        ProblemKind.Conflict,
        'args apply to a local (command) server only: a remote (url) server is sent none',
      );
    // A19
    const command = server['command'];
    if (typeof command === 'string' && command.includes('\0'))
      ctx.admission(at('command'), ProblemKind.Invalid, NUL_MESSAGE);
    asList(server['args']).forEach((arg, j) => {
      if (typeof arg === 'string' && arg.includes('\0'))
        ctx.admission(at('args', j), ProblemKind.Invalid, NUL_MESSAGE);
    });
    envRules(ctx, at('env'), server['env']);
    // A20
    const url = server['url'];
    if (typeof url === 'string' && (hasRef(url) || isHttpUrl(url)) && emptyHost(url))
      ctx.admission(at('url'), ProblemKind.Invalid, NO_HOST_MESSAGE);
  });
  // A19 in a seat's or a unit's mcp_env (the per-seat process's env)
  for (const holder of [...ctx.walk.seats, ...ctx.walk.units]) {
    const byServer = holder.raw['mcp_env'];
    if (!isRecord(byServer)) continue;
    for (const [server, env] of Object.entries(byServer))
      envRules(ctx, [...holder.segments, 'mcp_env', server], env);
  }
}
