/**
 * From an instance spec to what is actually launched: `${VAR}` references resolved (the instance's
 * own effective env first, so a seat's `mcp_env` can fill a header or an argument; then the
 * resolver the node is given), the values to keep out of logs, and a fingerprint that changes
 * exactly when the instance must be restarted.
 */
import { chainResolvers, emptyHost, listRefs, substituteRefs, type Resolver } from '../../schema/index.js';
import type { InstanceSpec } from './toolservers.plan.js';

export type Launch =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'http'; readonly url: string; readonly headers: Readonly<Record<string, string>> };

export interface ResolvedInstance {
  readonly spec: InstanceSpec;
  readonly launch: Launch;
  /**
   * Every env value, header value and referenced value, in each form it can take in text (see
   * `secretForms`): never logged, never in a status answer.
   */
  readonly secrets: readonly string[];
  /** Equal fingerprints mean the running instance can stay (a `tool_prefix` change needs no restart). */
  readonly fingerprint: string;
}

/** Values shorter than this are too common to scrub from text without garbling it. */
const minSecretLength = 4;

const sorted = (map: Readonly<Record<string, string>>): Array<[string, string]> =>
  Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export function resolveInstance(spec: InstanceSpec, resolve: Resolver): ResolvedInstance {
  const env = Object.fromEntries(
    Object.entries(spec.env).map(([name, value]) => [name, substituteRefs(value, resolve)]),
  );
  const local = chainResolvers((name) => env[name], resolve);
  const secrets = new Set<string>(Object.values(env));
  const sub = (text: string): string => {
    for (const name of listRefs(text)) secrets.add(local(name) ?? '');
    return substituteRefs(text, local);
  };
  const { entry } = spec;
  let launch: Launch;
  if (entry.url !== undefined) {
    const headers = Object.fromEntries(
      Object.entries(entry.headers ?? {}).map(([name, value]) => [name, sub(value)]),
    );
    for (const value of Object.values(headers)) secrets.add(value);
    launch = { kind: 'http', url: sub(entry.url), headers };
  } else {
    launch = {
      kind: 'stdio',
      command: sub(entry.command ?? ''),
      args: (entry.args ?? []).map(sub),
      env,
    };
  }
  const fingerprint = JSON.stringify(
    launch.kind === 'http'
      ? [launch.kind, launch.url, sorted(launch.headers)]
      : [launch.kind, launch.command, launch.args, sorted(launch.env)],
  );
  return { spec, launch, secrets: secretForms([...secrets]), fingerprint };
}

/**
 * Every form a secret value can take in text a server writes: the value itself, its JSON-escaped form
 * (a server printing `JSON.stringify(env)` writes `Pa\"ss\\word`), and each line of a multi-line value
 * (a PEM key logged or echoed line by line), each line's escaped form too. Forms shorter than
 * `minSecretLength` are left out; the longest come first, so a value containing another goes whole.
 */
export function secretForms(values: readonly string[]): string[] {
  const forms = new Set<string>();
  const escaped = (text: string): string => JSON.stringify(text).slice(1, -1);
  for (const value of values) {
    for (const whole of [value, value.replace(/\r\n/g, '\n')]) {
      forms.add(whole);
      forms.add(escaped(whole));
    }
    for (const line of value.split(/\r?\n/)) {
      forms.add(line);
      forms.add(escaped(line));
    }
  }
  return [...forms].filter((form) => form.length >= minSecretLength).sort((a, b) => b.length - a.length);
}

/** `text` with every secret form replaced (longest first, so a value containing another goes whole). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join('[redacted]');
  }
  return out;
}

/**
 * A remote's URL, checked with its headers once their `${VAR}` references are resolved: an unset variable
 * or a bad value is a failure of that server (with backoff), never of the apply. Neither the url nor a
 * header value is quoted: either may carry a credential.
 */
export function remoteUrl(launch: Extract<Launch, { kind: 'http' }>): URL {
  let url: URL;
  try {
    // An empty host (`http:///mcp`, from `http://${HOST}/mcp` with HOST unset) parses with `mcp` as the host.
    if (emptyHost(launch.url)) throw new Error('no host');
    url = new URL(launch.url);
  } catch {
    throw new Error('url is not a valid URL once its ${VAR} references are resolved');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`url must be http: or https:, not ${url.protocol}`);
  // fetch refuses a bad header on every request, which the SDK reports as a closed connection.
  for (const [name, value] of Object.entries(launch.headers)) {
    try {
      new Headers([[name, value]]);
    } catch {
      throw new Error(
        `header ${JSON.stringify(name)} is not a valid HTTP header once its \${VAR} references are resolved`,
      );
    }
  }
  return url;
}

/**
 * A stdio launch checked once its `${VAR}` references are resolved: spawn refuses a NUL in the command, an
 * argument or an env name or value with an error quoting the whole string, which may be a secret's (the
 * secret store holds arbitrary bytes) and which scrubbing misses, since the NUL reads escaped. The field is
 * named instead; a failure of that server (with backoff), never of the apply.
 */
export function checkStdioLaunch(launch: Extract<Launch, { kind: 'stdio' }>): void {
  const said = (field: string): Error =>
    new Error(`${field} holds a NUL character once its \${VAR} references are resolved`);
  if (launch.command.includes('\0')) throw said('command');
  launch.args.forEach((arg, i) => {
    if (arg.includes('\0')) throw said(`args[${i}]`);
  });
  for (const [name, value] of Object.entries(launch.env))
    if (name.includes('\0') || value.includes('\0')) throw said(`env ${JSON.stringify(name)}`);
}

/** Exponential backoff: `baseMs`, doubling per consecutive failure, never above `capMs`. */
export function backoffDelay(consecutiveFailures: number, baseMs: number, capMs: number): number {
  const exponent = Math.max(0, consecutiveFailures - 1);
  return Math.min(capMs, baseMs * 2 ** Math.min(exponent, 30));
}
