/** Rules between fields of providers, tool servers and integration blocks. */
import { keyPattern } from './fields.js';
import { CodehostBAccessLevels } from './integrations.schema.js';
import { LlmType } from './providers.schema.js';
import { ProblemKind, ReferenceKind } from './problems.js';
import { asList, asString, type RuleContext } from './rule-context.js';
import { isRecord, type Json } from './walk.js';

const block = (ctx: RuleContext, name: string): Json | null => {
  const integrations = ctx.doc['integrations'];
  const value = isRecord(integrations) ? integrations[name] : undefined;
  return isRecord(value) ? value : null;
};

/** A block with an `enabled` switch is on unless it says `enabled: false`. */
const enabled = (value: Json | null): boolean => value !== null && value['enabled'] !== false;

export function integrationRules(ctx: RuleContext): void {
  // The knowledge backend is single-homed.
  if (block(ctx, 'wiki') !== null && enabled(block(ctx, 'tracker_b'))) {
    ctx.problem(
      ['integrations', 'tracker_b'],
      ProblemKind.Conflict,
      'integrations.wiki and integrations.tracker_b are mutually exclusive (one knowledge backend); disable one',
    );
  }
  for (const name of ['tracker_a', 'wiki']) {
    const site = block(ctx, name);
    if (site === null) continue;
    if (site['url'] !== undefined && site['cloud_id'] !== undefined) {
      ctx.problem(
        ['integrations', name, 'cloud_id'],
        ProblemKind.Conflict,
        'set url (self-hosted) or cloud_id (cloud), not both',
      );
    } else if (site['url'] === undefined && site['cloud_id'] === undefined) {
      ctx.problem(
        ['integrations', name, 'url'],
        ProblemKind.Missing,
        'set url (self-hosted) or cloud_id (cloud)',
      );
    }
  }
  for (const name of ['codehost_b', 'tracker_b']) {
    const site = block(ctx, name);
    if (enabled(site) && site?.['url'] === undefined) {
      ctx.problem(['integrations', name, 'url'], ProblemKind.Missing, 'required while the block is enabled');
    }
  }
  const provisioning = block(ctx, 'codehost_b')?.['provisioning'];
  const level = isRecord(provisioning) ? provisioning['access_level'] : undefined;
  const known =
    typeof level === 'number'
      ? [...CodehostBAccessLevels.values()].includes(level)
      : typeof level !== 'string' || CodehostBAccessLevels.has(level.trim().toLowerCase());
  if (!known) {
    ctx.dangling({
      segments: ['integrations', 'codehost_b', 'provisioning', 'access_level'],
      ref: ReferenceKind.AccessLevel,
      to: String(level),
      message: `not an access level codehost-b knows (${[...CodehostBAccessLevels.keys()].join(', ')}, or their numbers)`,
    });
  }
}

/** Provider keys are route identities; `llm_order` names each provider at most once. */
export function providerRules(ctx: RuleContext): void {
  const providers = isRecord(ctx.doc['providers']) ? ctx.doc['providers'] : {};
  const llm = isRecord(providers['llm']) ? providers['llm'] : {};
  for (const [key, entry] of Object.entries(llm)) {
    if (!keyPattern.test(key)) {
      ctx.problem(
        ['providers', 'llm', key],
        ProblemKind.Invalid,
        'provider key must start with a letter or digit and hold only letters, digits, _ . -',
      );
    }
    if (isRecord(entry) && entry['type'] === LlmType.OpenAICompatible && entry['base_url'] === undefined) {
      ctx.problem(
        ['providers', 'llm', key, 'base_url'],
        ProblemKind.Missing,
        'required for type openai-compatible',
      );
    }
  }
  const seen = new Set<string>();
  asList(providers['llm_order']).forEach((entry, i) => {
    if (typeof entry !== 'string') return;
    if (!Object.prototype.hasOwnProperty.call(llm, entry)) {
      ctx.problem(
        ['providers', 'llm_order', i],
        ProblemKind.UnknownValue,
        'names no provider in providers.llm',
      );
    } else if (seen.has(entry)) {
      ctx.problem(['providers', 'llm_order', i], ProblemKind.Conflict, 'lists this provider twice');
    }
    seen.add(entry);
  });
}

/** Tool servers: unique names; local (`command`) or remote (`url`), exactly one. */
export function mcpServerRules(ctx: RuleContext): void {
  const seen = new Set<string>();
  asList(ctx.doc['mcp_servers']).forEach((server, i) => {
    if (!isRecord(server)) return;
    const name = asString(server['name']);
    if (name !== null) {
      if (seen.has(name)) {
        ctx.problem(['mcp_servers', i, 'name'], ProblemKind.Conflict, 'this tool-server name is used twice');
      }
      seen.add(name);
    }
    if (server['command'] !== undefined && server['url'] !== undefined) {
      ctx.problem(
        ['mcp_servers', i, 'url'],
        ProblemKind.Conflict,
        'set command (local) or url (remote), not both',
      );
    } else if (server['command'] === undefined && server['url'] === undefined) {
      ctx.problem(['mcp_servers', i, 'command'], ProblemKind.Missing, 'set command (local) or url (remote)');
    }
    if (server['headers'] !== undefined && server['command'] !== undefined && server['url'] === undefined) {
      ctx.problem(
        ['mcp_servers', i, 'headers'],
        ProblemKind.Conflict,
        'headers apply to a remote (url) server only',
      );
    }
  });
}
