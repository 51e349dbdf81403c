/** A unit (spec "Unit"): nests to any depth through `children`. */
import { z } from 'zod';
import { nonEmpty } from './fields.js';
import { UnitIntegrations } from './integrations.schema.js';
import { McpEnv, Schedule, Seat } from './seat.schema.js';

export const UnitType = { Department: 'department', Team: 'team' } as const;
export type UnitType = (typeof UnitType)[keyof typeof UnitType];

export interface Unit {
  name: string;
  type: UnitType;
  lead?: string | undefined;
  children?: Unit[] | undefined;
  roles?: Seat[] | undefined;
  integrations?: z.infer<typeof UnitIntegrations> | undefined;
  mcp_env?: Record<string, Record<string, string>> | undefined;
  schedules?: Schedule[] | undefined;
}

/**
 * `lead` names a seat (by name or handle) and is inherited from the parent when omitted.
 * `schedules` are unit-scoped schedules (`scope_type: unit`); the spec's unit table does not list
 * them, but its schedule section scopes schedules to units and fans `target: each` out to members.
 */
export const Unit: z.ZodType<Unit> = z
  .strictObject({
    name: nonEmpty.describe('Name of the unit, unique in the org.'),
    type: z.enum([UnitType.Department, UnitType.Team]).describe('`department` or `team`.'),
    lead: nonEmpty
      .optional()
      .describe('The seat (name or handle) that leads it; inherited from the parent when unset.'),
    get children() {
      return z.array(Unit).optional().describe('Units nested in this one.');
    },
    roles: z.array(Seat).optional().describe('Seats placed in this unit.'),
    integrations: UnitIntegrations.optional().describe('Where the unit’s work is routed and written.'),
    /** Inherited by seats placed in the unit. */
    mcp_env: McpEnv.optional(),
    schedules: z
      .array(Schedule)
      .optional()
      .describe('Schedules of the unit: `each` wakes its agent members, `lead` its lead.'),
  })
  .meta({ id: 'Unit', description: 'A department or team: a lead, seats, and units nested in it.' });
