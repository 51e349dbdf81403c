/**
 * Why a file could not be read, as a CLI message says it: the error's code, then what it means where the
 * code alone leaves a new user to look it up (`(ENOENT): no such file`).
 */
const meanings: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
};

export function readFailure(error: unknown): string {
  const code = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
  const meaning = meanings[code];
  return meaning === undefined ? `(${code})` : `(${code}): ${meaning}`;
}
