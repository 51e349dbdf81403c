/**
 * Durable agent ids (spec "Seat": a UUIDv5 over company name and handle; renaming a handle strands
 * its memory). UUIDv5 is RFC 9562 section 5.5: SHA-1 over namespace bytes then name bytes, first 16
 * bytes, version nibble 5, variant bits 10.
 */
import { createHash } from 'node:crypto';

/** RFC 9562 namespace ids, for reference and tests. */
export const NAMESPACE_DNS = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
export const NAMESPACE_URL = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/**
 * svc's namespace for agent ids: `uuidv5(NAMESPACE_URL, 'urn:svc:agent')`. Fixed forever: changing
 * it changes every agent id and strands every agent's memory.
 */
export const AGENT_NAMESPACE = 'b73bc90a-2632-522f-9906-4b0fac314ac4';

const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The bytes of the namespaces in use (a handful of constants): one id per delivery needs no re-parse. */
const namespaces = new Map<string, Buffer>();

function namespaceBytes(namespace: string): Buffer {
  let bytes = namespaces.get(namespace);
  if (bytes === undefined) {
    if (!uuidText.test(namespace)) throw new TypeError('namespace is not a UUID');
    bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
    if (namespaces.size < 64) namespaces.set(namespace, bytes);
  }
  return bytes;
}

/** A name-based UUID (version 5) of `name` (UTF-8) in `namespace`. */
export function uuidv5(namespace: string, name: string): string {
  const hash = createHash('sha1').update(namespaceBytes(namespace)).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The durable id of the agent holding `handle` in the company named `companyName`:
 * `uuidv5(AGENT_NAMESPACE, companyName + "\n" + handle)`. A handle never holds a newline, so the
 * pair is unambiguous.
 *
 * @example agentId('Acme', 'ada') // the same UUID on every node, every release
 */
export function agentId(companyName: string, handle: string): string {
  return uuidv5(AGENT_NAMESPACE, `${companyName}\n${handle}`);
}
