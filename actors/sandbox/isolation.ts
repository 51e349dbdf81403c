/**
 * How the local backend runs a setup step or a coding agent (ops/sandboxes.md "Isolation"), chosen by the
 * machine's operator in the bootstrap file (`sandbox.isolation`, `sandbox.network`):
 * - `process`: a plain child process with a minimal environment (the backend's own rules).
 * - `bubblewrap`: inside `bwrap` with fresh user, pid, ipc, uts and cgroup namespaces, and a fresh network
 *   namespace unless the network is shared. The file system is a read-only view of the system directories
 *   (/usr, /etc, /opt and the /bin, /sbin, /lib links), private /tmp, /var/tmp, /proc and /dev, and the run's
 *   own directory writable at its own path. Nothing else of the machine is there: not the store directory
 *   (hidden even when it lies under a system directory), not home directories, not the node's bootstrap
 *   file's directory. When the pid namespace's first process ends, the kernel ends everything in it.
 */
import { execFile } from 'node:child_process';
import { lstatSync, mkdtempSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';

export interface IsolatedCommand {
  readonly file: string;
  readonly args: string[];
}

export interface Placement {
  /** The run's own directory (working and control directories under it): writable, at its own path. */
  readonly base: string;
  readonly cwd: string;
  /** Setup steps end with the node; an agent outlives it (a restart finds it again). */
  readonly dieWithParent: boolean;
}

export interface Isolation {
  readonly kind: 'process' | 'bubblewrap';
  /** The command line that runs `argv` under this isolation. */
  command(argv: readonly string[], at: Placement): IsolatedCommand;
}

export const processIsolation: Isolation = {
  kind: 'process',
  command: ([file, ...args]) => ({ file: file ?? 'true', args }),
};

export interface BubblewrapOptions {
  /** The `bwrap` executable (default: `bwrap` on PATH). */
  readonly bin?: string;
  /** `host` shares the node's network; `none` gives the run only its own loopback. */
  readonly network: 'host' | 'none';
  /** Paths hidden even when they lie under a system directory: the store, the bootstrap file's directory. */
  readonly hide: readonly string[];
}

/** Read-only system directories a coding agent needs: programs, libraries, certificates, resolver files. */
const systemPaths = ['/usr', '/etc', '/opt', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

const within = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/** The mounts of the system view, decided once: merged-/usr links stay links, directories are bound. */
function systemView(): { args: string[]; bound: string[] } {
  const args: string[] = [];
  const bound: string[] = [];
  for (const path of systemPaths) {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else if (stat.isDirectory()) {
      args.push('--ro-bind', path, path);
      bound.push(path);
    }
  }
  return { args, bound };
}

/** A resolver file kept outside /etc (systemd-resolved links /etc/resolv.conf into /run): bound too. */
function resolverTarget(): string | null {
  try {
    const real = realpathSync('/etc/resolv.conf');
    return within(real, '/etc') || within(real, '/usr') ? null : real;
  } catch {
    return null;
  }
}

export function bubblewrapIsolation(opts: BubblewrapOptions): Isolation {
  const bin = opts.bin ?? 'bwrap';
  const view = systemView();
  const resolver = opts.network === 'host' ? resolverTarget() : null;
  // Hidden paths only matter where the view would show them.
  const hides: string[] = [];
  for (const path of opts.hide.map((p) => resolve(p))) {
    if (!view.bound.some((dir) => within(path, dir))) continue;
    let directory: boolean;
    try {
      directory = statSync(path).isDirectory();
    } catch {
      // Not there, so nothing to see (the store exists before any run starts).
      continue;
    }
    hides.push(...(directory ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]));
  }
  return {
    kind: 'bubblewrap',
    command(argv, at) {
      const args = [
        '--unshare-all',
        ...(opts.network === 'host' ? ['--share-net'] : []),
        ...(at.dieWithParent ? ['--die-with-parent'] : []),
        ...view.args,
        ...(resolver ? ['--ro-bind', resolver, resolver] : []),
        '--proc',
        '/proc',
        '--dev',
        '/dev',
        '--tmpfs',
        '/tmp',
        '--tmpfs',
        '/var/tmp',
        ...hides,
        // Last, so the run's directory shows through a hidden store that holds it.
        '--bind',
        at.base,
        at.base,
        '--chdir',
        at.cwd,
        '--',
        ...argv,
      ];
      return { file: bin, args };
    },
  };
}

/**
 * Whether the isolation can start a sandbox on this machine: null when it can, else why not (in our
 * words, with the first line `bwrap` printed). Run at start, so a node never launches unisolated runs
 * it was told to isolate.
 */
export async function probeIsolation(isolation: Isolation): Promise<string | null> {
  if (isolation.kind === 'process') return null;
  const base = mkdtempSync(join(tmpdir(), 'svc-sandbox-probe-'));
  try {
    const { file, args } = isolation.command(['sh', '-c', 'test -w .'], {
      base,
      cwd: base,
      dieWithParent: true,
    });
    return await new Promise<string | null>((done) => {
      execFile(
        file,
        args,
        { timeout: 10_000, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } },
        (error, _out, stderr) => {
          if (error === null) return done(null);
          if ((error as NodeJS.ErrnoException).code === 'ENOENT')
            return done(`${file} was not found on PATH (Debian: apt-get install bubblewrap)`);
          const first = stderr.split('\n').find((line) => line.trim() !== '') ?? `exit ${String(error.code)}`;
          done(`${file} could not start a sandbox here: ${first.trim().slice(0, 300)}`);
        },
      );
    });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** The directory to hide for a bootstrap file: its own, unless that is a system root itself (then the file). */
export function bootstrapHide(file: string | null): string | null {
  if (file === null) return null;
  const dir = dirname(resolve(file));
  return systemPaths.includes(dir) || dir === '/' ? resolve(file) : dir;
}
