/**
 * The Tier B company document (spec "Tier B company document"): every field the spec fixes, unknown
 * fields refused. Maps whose values are free settings (extensions, notification transports) accept
 * any keys. The schema states shapes only; relations between fields are rules (rules-*.ts).
 */
import { z } from 'zod';
import { count, nonEmpty, nonNegative, settingsMap, stringMap, strings, text, timezone } from './fields.js';
import { Integrations } from './integrations.schema.js';
import { McpServer, Providers } from './providers.schema.js';
import { Seat } from './seat.schema.js';
import { Knowledge, Learning, TurnEngine } from './settings.schema.js';
import { Unit } from './unit.schema.js';

export const Company = z
  .strictObject({
    /** Part of every durable agent id: renaming the company strands every agent's memory. */
    name: nonEmpty,
    mission: text.optional(),
    vision: text.optional(),
    policies: strings.optional(),
    timezone: timezone.optional(),
    providers: Providers.optional(),
    turn_engine: TurnEngine.optional(),
    learning: Learning.optional(),
    mcp_servers: z.array(McpServer).optional(),
    notification_transports: settingsMap.optional(),
    integrations: Integrations.optional(),
    /** Seats at root level. */
    roles: z.array(Seat).optional(),
    units: z.array(Unit).optional(),
    extensions: settingsMap.optional(),
    /** Org-wide token cap; 0 = unlimited. */
    token_budget: count.optional(),
    notification_rate_limit: nonNegative.optional(),
    notification_coalesce_window_seconds: nonNegative.optional(),
    notification_coalesce_max_batch: z.number().int().min(1).optional(),
    knowledge: Knowledge.optional(),
    skill_variables: stringMap.optional(),
  })
  .meta({ title: 'svc company document (Tier B)' });
export type Company = z.infer<typeof Company>;
