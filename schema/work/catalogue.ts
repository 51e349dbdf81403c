/**
 * Task types and custom-field declarations (`GET /work/catalogue`). The catalogue is part of the build:
 * every project offers the same types; an archived entry stays readable (old items keep it) but a new item
 * may not use it.
 */
import { z } from 'zod';
import { isCalendarDate } from './item.js';

export const CustomField = z.object({
  name: z.string(),
  type: z.enum(['text', 'number', 'date', 'enum', 'boolean']),
  description: z.string(),
  /** `enum` fields only. */
  options: z.array(z.string()).optional(),
  /** `number` fields only: the least value taken (an effort in hours is never negative). */
  min: z.number().optional(),
  /** Types the field applies to; empty: every type. */
  types: z.array(z.string()),
  archived: z.boolean(),
});
export type CustomField = z.infer<typeof CustomField>;

export const TaskType = z.object({ name: z.string(), description: z.string(), archived: z.boolean() });
export type TaskType = z.infer<typeof TaskType>;

export const taskTypes: readonly TaskType[] = [
  { name: 'task', description: 'A piece of work to do.', archived: false },
  { name: 'bug', description: 'Something that does not work as it should.', archived: false },
  { name: 'feature', description: 'Something new for the people the company serves.', archived: false },
  { name: 'chore', description: 'Upkeep: nobody asked, everybody benefits.', archived: false },
  { name: 'question', description: 'Someone needs an answer before they can go on.', archived: false },
  { name: 'story', description: 'Superseded by feature; kept so older items still read.', archived: true },
];

export const customFields: readonly CustomField[] = [
  {
    name: 'estimate',
    type: 'number',
    description: 'Effort in hours.',
    min: 0,
    types: [],
    archived: false,
  },
  {
    name: 'severity',
    type: 'enum',
    description: 'How bad the bug is.',
    options: ['critical', 'major', 'minor', 'trivial'],
    types: ['bug'],
    archived: false,
  },
  {
    name: 'due',
    type: 'date',
    description: 'When it must be done (YYYY-MM-DD).',
    types: [],
    archived: false,
  },
  {
    name: 'component',
    type: 'text',
    description: 'The part of the product concerned.',
    types: [],
    archived: false,
  },
  { name: 'customer_facing', type: 'boolean', description: 'Seen by customers.', types: [], archived: false },
];

/** The type named, or null when it is unknown. */
export const taskTypeNamed = (name: string): TaskType | null =>
  taskTypes.find((t) => t.name === name) ?? null;

/** Why a custom field value does not fit its declaration, or null when it fits. */
export function customFieldProblem(type: string, name: string, value: unknown): string | null {
  const field = customFields.find((f) => f.name === name);
  if (!field) return `unknown custom field "${name}" (see GET /work/catalogue)`;
  if (field.archived) return `custom field "${name}" is archived`;
  if (field.types.length > 0 && !field.types.includes(type))
    return `custom field "${name}" does not apply to ${type}`;
  if (value === null) return null;
  switch (field.type) {
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'a number';
      return field.min !== undefined && value < field.min ? `a number of at least ${field.min}` : null;
    case 'boolean':
      return typeof value === 'boolean' ? null : 'true or false';
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? null : 'a calendar date YYYY-MM-DD';
    case 'enum':
      return typeof value === 'string' && (field.options ?? []).includes(value)
        ? null
        : `one of ${(field.options ?? []).join(', ')}`;
    case 'text':
      return typeof value === 'string' && value.length <= 500 ? null : 'text of at most 500 characters';
  }
}
