/**
 * Where project files' bytes live: a KV bucket of the bus, content-addressed by SHA-256 and cut into
 * chunks a bus message holds, so every node reads what any node wrote. The work log lists a file's
 * versions; a version listed whose chunks cannot be read answers 503 `content_unavailable`.
 */
import type { Kv } from '../../../bus/index.js';

export interface FileBlobs {
  put(sha256: string, bytes: Buffer): Promise<void>;
  /** The bytes, or null when a chunk is missing or the store does not answer. */
  get(sha256: string, size: number): Promise<Buffer | null>;
}

const CHUNK_BYTES = 256 * 1024;

export const FILES_BUCKET = 'svc_work_files';

export function kvBlobs(kv: Kv): FileBlobs {
  const chunks = (size: number): number => Math.max(1, Math.ceil(size / CHUNK_BYTES));
  return {
    async put(sha256, bytes) {
      for (let i = 0; i < chunks(bytes.length); i++)
        await kv.put(`${sha256}.${i}`, bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES));
    },
    async get(sha256, size) {
      const parts: Uint8Array[] = [];
      try {
        for (let i = 0; i < chunks(size); i++) {
          const entry = await kv.get(`${sha256}.${i}`);
          if (!entry) return null;
          parts.push(entry.value);
        }
      } catch {
        return null;
      }
      const bytes = Buffer.concat(parts);
      return bytes.length === size ? bytes : null;
    },
  };
}
