/**
 * The Tier B company document (spec "Tier B company document"): every field the spec fixes, unknown
 * fields refused. Maps whose values are free settings (extensions, notification transports) accept
 * any keys. The schema states shapes only; relations between fields are rules (rules-*.ts).
 */
import { z } from 'zod';
import { count, nonEmpty, nonNegative, settingsMap, stringMap, strings, text } from './fields.js';
import { companyTimezone } from './editor-hints.js';
import { Integrations } from './integrations.schema.js';
import { McpServer, Providers } from './providers.schema.js';
import { Seat } from './seat.schema.js';
import { Knowledge, Learning, TurnEngine } from './settings.schema.js';
import { Unit } from './unit.schema.js';

export const Company = z
  .strictObject({
    /** Part of every durable agent id: renaming the company strands every agent's memory. */
    name: nonEmpty.describe(
      'The company name; part of every agent’s durable id, so renaming it strands every agent’s memory.',
    ),
    mission: text.optional().describe('The mission, shown in the org view and in agents’ prompts.'),
    vision: text.optional().describe('The vision, shown in the org view and in agents’ prompts.'),
    policies: strings.optional().describe('Rules every seat follows, one per item.'),
    timezone: companyTimezone
      .optional()
      .describe(
        'IANA timezone of the company (such as Europe/Berlin): the default for schedules and the day boundaries of activity; UTC when unset.',
      ),
    providers: Providers.optional().describe('Model providers: LLM entries, their order, embeddings.'),
    turn_engine: TurnEngine.optional().describe('Tool-round limits of a turn’s plan and execute phases.'),
    learning: Learning.optional().describe('The learning subsystem: reflection, profiles, skills, memory.'),
    mcp_servers: z
      .array(McpServer)
      .optional()
      .describe('Tool servers (MCP) whose tools seats may call: a local command or a remote URL each.'),
    notification_transports: settingsMap
      .optional()
      .describe(
        'Named outbound notification transports: name → settings (`type: webhook`: url, secret, events, seats; `type: chat`: a chat channel’s incoming hook; ops/notifications.md).',
      ),
    integrations: Integrations.optional().describe(
      'Vendor integrations: trackers, wiki, chat, code hosts, and the relay app id.',
    ),
    /** Seats at root level. */
    roles: z.array(Seat).optional().describe('Seats at root level (each may name the `unit` it lands in).'),
    units: z
      .array(Unit)
      .optional()
      .describe('Departments and teams, nesting to any depth through `children`.'),
    extensions: settingsMap.optional().describe('Extension name → its settings map.'),
    /** Org-wide token cap; 0 = unlimited. */
    token_budget: count.optional().describe('Org-wide token cap per budget window; 0 means unlimited.'),
    notification_rate_limit: nonNegative
      .optional()
      .describe(
        'Most inbound notifications that may wake one seat per minute; more are skipped (NotificationSkipped). 0 or absent: no limit.',
      ),
    notification_coalesce_window_seconds: nonNegative
      .optional()
      .describe(
        'Seconds (at most 3600) over which inbound notifications for one seat are batched into one wake.',
      ),
    notification_coalesce_max_batch: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Most inbound notifications one batched wake carries.'),
    knowledge: Knowledge.optional().describe('Org-wide knowledge read scope.'),
    skill_variables: stringMap
      .optional()
      .describe(
        'Values a tool skill’s `{{name}}` placeholders take (for example wiki_base_url); ops/skills.md.',
      ),
  })
  .meta({
    title: 'svc company document (Tier B)',
    description:
      'The company an svc node runs: charter, providers, tool servers, integrations, seats and units. Any string may hold ${VAR} references (secret store, then environment).',
  });
export type Company = z.infer<typeof Company>;
