/**
 * Reading what a run leaves in its control directory (ops/sandboxes.md "The coding agent's side"): the
 * result and question files, the exit code and the log's tail, each bounded and read only from a regular
 * file at its own path, since the directory is the run's to write.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * The most of a control file (`result.json`, `question.json`) the node reads: far past what their schemas
 * keep (a 20,000-character summary, an 8,000-character question), so only a run writing junk meets it. The
 * run writes these files, so one can be of any size; a larger one is not read, as if absent.
 */
const CONTROL_FILE_MAX_BYTES = 256 * 1024;

/**
 * Opens a control file for reading only when it is a regular file at that very path. The run owns the
 * directory (under bubblewrap it is bound writable into the sandbox) while the node reads it from outside:
 * a link there is not followed (its target could be any file the node can read, shown back as the run's
 * summary), and a FIFO is neither waited on (O_NONBLOCK) nor read. Null when the file is absent or not so.
 */
async function openControlFile(path: string): Promise<FileHandle | null> {
  let file: FileHandle | undefined;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if ((await file.stat()).isFile()) return file;
  } catch {
    // absent, a link (ELOOP), unreadable
  }
  await file?.close();
  return null;
}

/** A control file's text, read to at most `max` bytes; undefined when absent, not a regular file or larger. */
export async function readControlText(path: string, max: number): Promise<string | undefined> {
  const file = await openControlFile(path);
  if (file === null) return undefined;
  try {
    // Read to one byte past the cap, never by a size asked first: the run may still be writing the file,
    // so a stat read small could be followed by a whole read of what it grew to.
    const buffer = Buffer.allocUnsafe(max + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > max) return undefined;
    }
    return buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}

export async function readJson(path: string): Promise<unknown> {
  const text = await readControlText(path, CONTROL_FILE_MAX_BYTES);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The last `chars` characters of the file at `path` ('' when it cannot be read), from its last bytes alone:
 * a log of gigabytes is never loaded whole (nor fails to fit a string). A character cut by the start of the
 * read is left out.
 */
export async function logTail(path: string, chars: number): Promise<string> {
  const file = await openControlFile(path);
  if (file === null) return '';
  try {
    const { size } = await file.stat();
    const length = Math.min(size, chars * 4);
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await file.read(bytes, 0, length, size - length);
    let start = 0;
    // Skip the continuation bytes of a character whose first bytes lie before the read.
    while (start < bytesRead && length < size && (bytes[start]! & 0xc0) === 0x80) start += 1;
    return bytes.subarray(start, bytesRead).toString('utf8').slice(-chars);
  } catch {
    return '';
  } finally {
    await file.close();
  }
}
