/**
 * Where project files' bytes live: a KV bucket of the bus, content-addressed by SHA-256 and cut into
 * chunks a bus message holds, so every node reads what any node wrote. The work log lists a file's
 * versions; a version listed whose chunks cannot be read answers 503 `content_unavailable`.
 */
import type { Kv } from '../../../bus/index.js';
import { fileChunkKey } from '../../../schema/index.js';

export interface FileBlobs {
  put(sha256: string, bytes: Buffer): Promise<void>;
  /**
   * The bytes chunk by chunk, each read only when asked for, so a reader holds one at a time. Throws
   * `UnreadableBlob` when a chunk is missing, is not the size its place says, or the store does not answer.
   */
  stream(sha256: string, size: number): AsyncIterable<Uint8Array>;
}

/** A file's bytes cannot be read (a chunk missing or short, or the store failing). */
class UnreadableBlob extends Error {
  override name = 'UnreadableBlob';
}

const CHUNK_BYTES = 256 * 1024;

export const FILES_BUCKET = 'svc_work_files';

export function kvBlobs(kv: Kv): FileBlobs {
  const chunks = (size: number): number => Math.max(1, Math.ceil(size / CHUNK_BYTES));
  return {
    async put(sha256, bytes) {
      // Written even when the content is stored already: a fresh `created` keeps the sweep off bytes a PUT
      // is about to list again (actors/work/work.files.sweep.ts).
      for (let i = 0; i < chunks(bytes.length); i++)
        await kv.put(fileChunkKey(sha256, i), bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES));
    },
    async *stream(sha256, size) {
      for (let i = 0; i < chunks(size); i++) {
        const key = fileChunkKey(sha256, i);
        let value: Uint8Array;
        try {
          const entry = await kv.get(key);
          if (!entry) throw new UnreadableBlob(`chunk ${i} of ${sha256} is missing`);
          value = entry.value;
        } catch (err) {
          if (err instanceof UnreadableBlob) throw err;
          throw new UnreadableBlob(`chunk ${i} of ${sha256} could not be read`, { cause: err });
        }
        const expected = Math.min(CHUNK_BYTES, size - i * CHUNK_BYTES);
        if (value.length !== expected)
          throw new UnreadableBlob(`chunk ${i} of ${sha256} holds ${value.length} bytes, not ${expected}`);
        yield value;
      }
    },
  };
}
