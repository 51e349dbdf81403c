/**
 * What the vendor ids a setup write puts in the document (the `kind: 'id'` requirements) can be. Each
 * is spliced into a vendor URL (`/ex/confluence/<cloud_id>`, `/groups/<group>`, `/workspaces/<workspace>`)
 * or compared as sent (the relay's `aud`), so a blank one, one with spaces, control characters or URL
 * metacharacters, or a very long one is refused: by the setup inputs naming the field, and by admission
 * rule A9 on a new document (ops/setup.md, "Where things are configured"). tracker-b's `username_prefix` is
 * a text field, not an id, but is spliced the same way (`/members/<prefix><handle>`), so it has a shape here
 * too. A `${VAR}` reference is taken as it is: its value is checked where it is used.
 */
import { z } from 'zod';

/** A path segment of a codehost-b group: its own charset, never `.`/`-` first (so never `..`). */
const groupSegment = '[A-Za-z0-9_][A-Za-z0-9_.-]*';

export const VendorIds = {
  /** The cloud site id of tracker-a and the wiki (a UUID in practice). */
  cloud_id: z
    .string()
    .max(100, 'at most 100 characters')
    .regex(/^[A-Za-z0-9-]+$/, 'a cloud site id: letters, digits and -'),
  /** codehost-b's group path; subgroups join with `/` (encoded when spliced into the API path). */
  group: z
    .string()
    .max(255, 'at most 255 characters')
    .regex(
      new RegExp(`^${groupSegment}(/${groupSegment})*$`),
      'a group path: letters, digits, _ . and - (not first), subgroups joined by /',
    ),
  /** tracker-b's workspace slug. */
  workspace: z
    .string()
    .max(100, 'at most 100 characters')
    .regex(/^[A-Za-z0-9_-]+$/, 'a workspace slug: letters, digits, _ and -'),
  /** The start of tracker-b member names: prefix + seat handle is one segment of the member's URL path. */
  username_prefix: z
    .string()
    .max(64, 'at most 64 characters')
    .regex(/^[A-Za-z0-9_.-]+$/, 'a username prefix: letters, digits, _ . and -'),
  /** The relay's app id (an `ari:cloud:ecosystem::app/<uuid>`-style string): compared, never spliced. */
  relay_app_id: z
    .string()
    .max(255, 'at most 255 characters')
    .regex(/^[\x21-\x7e]+$/, 'an app id: visible ASCII without spaces'),
} as const satisfies Record<string, z.ZodString>;

/** Where each id lives in the company document. */
export const vendorIdPaths: ReadonlyArray<{ field: keyof typeof VendorIds; segments: string[] }> = [
  { field: 'cloud_id', segments: ['integrations', 'tracker_a', 'cloud_id'] },
  { field: 'cloud_id', segments: ['integrations', 'wiki', 'cloud_id'] },
  { field: 'group', segments: ['integrations', 'codehost_b', 'provisioning', 'group'] },
  { field: 'workspace', segments: ['integrations', 'tracker_b', 'workspace'] },
  { field: 'username_prefix', segments: ['integrations', 'tracker_b', 'provisioning', 'username_prefix'] },
  { field: 'relay_app_id', segments: ['integrations', 'relay_app_id'] },
];

/** Whether a setup field is held to a shape here (every `kind: 'id'` field, and `username_prefix`). */
export const hasVendorShape = (field: string): boolean => Object.hasOwn(VendorIds, field);

/** Why `value` (trimmed, not blank) is not the vendor id `field`; null when it is one or `field` is no id. */
export function vendorIdProblem(
  field: string,
  value: string,
): { kind: 'out_of_range' | 'shape'; message: string } | null {
  if (!Object.hasOwn(VendorIds, field)) return null;
  const parsed = VendorIds[field as keyof typeof VendorIds].safeParse(value);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  return {
    kind: issue?.code === 'too_big' ? 'out_of_range' : 'shape',
    message: issue?.message ?? 'not an id',
  };
}
