/**
 * The local process backend (ops/sandboxes.md "Local backend"): each run gets `<root>/<sandbox id>/work`
 * (its working directory, where the setup steps run first) and `<root>/<sandbox id>/control` (the files
 * it talks through). The agent runs detached in its own process group, with a minimal environment — PATH,
 * HOME set to the working directory, the seat's `sandbox.env` and the supervisor's variables — never the
 * service's own, so no credential of the node reaches it. A wrapper writes the exit code to the control
 * directory, so a node that restarts still learns how a run it launched ended. The steps and the agent run
 * under the node's isolation (isolation.ts); the wrapper stays outside it, so a sandbox that cannot start
 * still leaves its exit code and `bwrap`'s words in the log.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SandboxQuestion, SandboxResult } from '../../schema/index.js';
import type { LaunchRequest, Launched, Observation, SandboxBackend } from './backend.js';
import { logTail, readControlText, readJson } from './control-files.js';
import { processIsolation, type Isolation } from './isolation.js';

/** A setup step that runs longer than this fails the launch. */
const setupTimeoutMs = 10 * 60_000;

const controlOf = (run: Launched): string => join(run.workdir, '..', 'control');

/** How long a stopped run's processes get to exit on SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 5_000;
const STOP_POLL_MS = 50;

/** Whether the process (or, for a negative pid, any process of the group) exists. */
function alive(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether /proc answers here (Linux): without it a stored pid cannot be checked, and is trusted. */
const procfs = existsSync('/proc/self/environ');

/** Whether process `pid` was started with `SVC_SANDBOX_ID=<id>` (an environment it cannot read: no). */
function carriesRun(pid: number, id: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`SVC_SANDBOX_ID=${id}`);
  } catch {
    return false;
  }
}

/** The process group `pid` leads or led (field 5 of /proc/<pid>/stat, after the parenthesised name). */
function groupOf(pid: string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return null;
  }
}

/**
 * Whether process group `pid` is still run `id`'s. After a restart the stored pid may belong to a stranger
 * (pids are reused): the wrapper that leads the group was started with the run's `SVC_SANDBOX_ID`, which
 * /proc/<pid>/environ keeps whatever the shell or bubblewrap did since. Linux does not hand out a pid while
 * a group of that id lives, so a live leader without the variable means the run's group is gone. A group
 * whose leader is gone (or a zombie, whose environment reads empty) is the run's when one of its members
 * carries the variable (one whose environment cannot be read does not count). Without /proc the pid is
 * trusted.
 */
function ownsGroup(pid: number, id: string): boolean {
  if (!procfs) return alive(-pid);
  if (carriesRun(pid, id)) return true;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || groupOf(entry) !== pid) continue;
    if (carriesRun(Number(entry), id)) return true;
  }
  return false;
}

/** The run id process `pid` was started with (`SVC_SANDBOX_ID`), or null (none, or unreadable). */
function runOfProcess(pid: number): string | null {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'latin1')
      .split('\0')
      .find((e) => e.startsWith('SVC_SANDBOX_ID='));
    return entry === undefined ? null : entry.slice('SVC_SANDBOX_ID='.length);
  } catch {
    return null;
  }
}

/**
 * The process groups (other than this node's own) holding a process started with the variable of one of
 * runs `ids`, each with that run: a setup step or an agent no record leads to, or what an ended run left.
 * One pass reading every process's environment, so only at start or for the rare launch a node's death
 * cut; none without /proc.
 */
function groupsOf(ids: ReadonlySet<string>): Map<number, string> {
  const groups = new Map<number, string>();
  if (!procfs || ids.size === 0) return groups;
  const own = groupOf(String(process.pid));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const id = runOfProcess(Number(entry));
    if (id === null || !ids.has(id)) continue;
    const group = groupOf(entry);
    if (group !== null && group !== own) groups.set(group, id);
  }
  return groups;
}

/**
 * What the wrapper's exit code says of a run that ended without a result file: exit 0 is done with its
 * log's tail; anything else failed. Null while no exit code is written.
 */
async function exitObservation(control: string): Promise<Observation | null> {
  const exit = (await readControlText(join(control, 'exit_code'), 64))?.trim() ?? null;
  if (exit === null) return null;
  if (exit === '0') {
    const tail = await logTail(join(control, 'agent.log'), 2_000);
    return {
      question: null,
      result: { status: 'done', summary: tail.trim(), total_tokens: 0, error: null },
      gone: null,
    };
  }
  return { question: null, result: null, gone: `the coding agent exited with code ${exit}` };
}

/** The run's id, from the layout `launch` made (`<root>/<sandbox id>/work`). */
const runIdOf = (run: Launched): string => basename(dirname(run.workdir));

/**
 * Sends `signal` to run `id`'s process group `pid`, only while the group is still the run's (`ownsGroup`):
 * every signal of a stop — the SIGTERM, and the SIGKILL after the grace or at exit — checks again, so a
 * group id that passed to a stranger meanwhile is never signalled. Whether it was the run's.
 */
function signalRun(pid: number, id: string, signal: NodeJS.Signals): boolean {
  if (!ownsGroup(pid, id)) return false;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
  return true;
}

/**
 * Runs told to stop (SIGTERM) whose grace is not over, by the pid leading their group: the backend itself
 * SIGKILLs what is left of each once its deadline passes, so the kill never depends on the caller staying.
 * The timer that checks them does not hold the node up; a node that exits before a deadline kills the group
 * as it goes rather than leave a run that ignores SIGTERM running.
 */
const stopping = new Map<number, { readonly id: string; readonly deadline: number }>();
let stoppingTimer: NodeJS.Timeout | null = null;

const killStoppingOnExit = (): void => {
  for (const [pid, { id }] of stopping) signalRun(pid, id, 'SIGKILL');
};

function checkStopping(): void {
  stoppingTimer = null;
  const now = Date.now();
  for (const [pid, { id, deadline }] of stopping) {
    const left = alive(-pid);
    if (left && now < deadline) continue;
    if (left) signalRun(pid, id, 'SIGKILL');
    stopping.delete(pid);
  }
  if (stopping.size === 0) process.off('exit', killStoppingOnExit);
  else stoppingTimer = setTimeout(checkStopping, STOP_POLL_MS).unref();
}

/**
 * SIGTERM now to run `id`'s group `pid` (when it is still the run's); SIGKILL to what is left after the
 * grace (a second stop keeps the first one's deadline).
 */
function stopRun(pid: number, id: string): void {
  if (!signalRun(pid, id, 'SIGTERM') || stopping.has(pid)) return;
  if (stopping.size === 0) process.on('exit', killStoppingOnExit);
  stopping.set(pid, { id, deadline: Date.now() + STOP_GRACE_MS });
  stoppingTimer ??= setTimeout(checkStopping, STOP_POLL_MS).unref();
}

/**
 * Runs the agent (`"$@"`), records its exit code where a restarted node finds it, then ends the run's
 * process group: what the agent left running in the background ends with it (under bubblewrap, the
 * namespace's first process is in the group, so the whole namespace ends).
 */
const WRAPPER =
  '"$@"; code=$?; tmp="$SVC_SANDBOX_CONTROL/exit_code.tmp"; rm -f "$tmp"; ' +
  // Noclobber: the file is created anew (O_EXCL), never written through a link the run left in its place.
  '(set -C; echo "$code" > "$tmp") && mv -f "$tmp" "$SVC_SANDBOX_CONTROL/exit_code"; kill -s KILL 0';

/** The launch's abort as an error (its reason when it is one). */
const abortError = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('the launch was cancelled');

function runStep(
  step: string,
  base: string,
  cwd: string,
  env: Record<string, string>,
  isolation: Isolation,
  abort: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (abort?.aborted) return reject(abortError(abort));
    const { file, args } = isolation.command(['sh', '-c', step], { base, cwd, dieWithParent: true });
    // Its own process group: a step cut by its timeout or a cancel is stopped with what it started.
    const child = spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2_000);
    });
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(killGroup, setupTimeoutMs);
    abort?.addEventListener('abort', killGroup, { once: true });
    const settle = (): void => {
      clearTimeout(timer);
      abort?.removeEventListener('abort', killGroup);
    };
    child.on('error', (error) => {
      settle();
      reject(error);
    });
    child.on('exit', (code, signal) => {
      settle();
      // What the step left in the background ends with it.
      killGroup();
      if (abort?.aborted) reject(abortError(abort));
      else if (code === 0) resolve();
      else reject(new Error(`setup step "${step}" failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`));
    });
  });
}

export function localBackend(opts: {
  readonly root: string;
  /** Default: plain processes. */
  readonly isolation?: Isolation;
}): SandboxBackend {
  const isolation = opts.isolation ?? processIsolation;
  return {
    kind: 'local',
    async launch(request: LaunchRequest): Promise<Launched> {
      const base = join(opts.root, request.sandbox_id);
      const workdir = join(base, 'work');
      const control = join(base, 'control');
      // A fresh directory: whatever a launch of the same id left half-done is removed first.
      await rm(base, { recursive: true, force: true });
      await mkdir(workdir, { recursive: true });
      await mkdir(control, { recursive: true });
      await writeFile(join(control, 'task.txt'), request.task);
      const env: Record<string, string> = {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: workdir,
        LANG: 'C.UTF-8',
        ...request.settings.env,
        ...request.env,
        SVC_SANDBOX_ID: request.sandbox_id,
        SVC_SANDBOX_CONTROL: control,
        SVC_SANDBOX_TASK: request.task,
        SVC_SANDBOX_COMMAND: request.settings.command,
      };
      for (const step of request.settings.setup)
        await runStep(step, base, workdir, env, isolation, request.signal);
      if (request.signal?.aborted) throw abortError(request.signal);
      const log = await open(join(control, 'agent.log'), 'a');
      try {
        const agent = isolation.command(['sh', '-c', request.settings.command], {
          base,
          cwd: workdir,
          dieWithParent: false,
        });
        const child = spawn('sh', ['-c', WRAPPER, 'sh', agent.file, ...agent.args], {
          cwd: workdir,
          env,
          detached: true,
          stdio: ['ignore', log.fd, log.fd],
        });
        const pid = await new Promise<number>((resolve, reject) => {
          child.once('spawn', () => resolve(child.pid ?? 0));
          child.once('error', reject);
        });
        // Detached: the run outlives this process (a restart finds it by pid and control files).
        child.unref();
        return { workdir, pid: pid > 0 ? pid : null };
      } finally {
        await log.close();
      }
    },

    async observe(run: Launched): Promise<Observation> {
      const control = controlOf(run);
      const result = SandboxResult.safeParse(await readJson(join(control, 'result.json')));
      const asked = SandboxQuestion.safeParse(await readJson(join(control, 'question.json')));
      const question = asked.success ? asked.data : null;
      if (result.success) return { question: null, result: result.data, gone: null };
      const exited = await exitObservation(control);
      if (exited) return exited;
      // A pid reused by a stranger since a restart is not the run: the run is gone all the same.
      if (run.pid === null || !alive(run.pid) || !ownsGroup(run.pid, runIdOf(run)))
        // The wrapper writes the exit code before its group dies: one that ended between the read above
        // and this check has written it by now (seen: a run of `true` recorded failed as gone).
        return (
          (await exitObservation(control)) ?? {
            question: null,
            result: null,
            gone: 'the coding agent process is gone',
          }
        );
      return { question, result: null, gone: null };
    },

    async answer(run: Launched, answer: string, at: string): Promise<void> {
      const control = controlOf(run);
      const tmp = join(control, 'answer.json.tmp');
      await writeFile(tmp, JSON.stringify({ answer, answered_at: at }));
      await rename(tmp, join(control, 'answer.json'));
      await rm(join(control, 'question.json'), { force: true });
    },

    stopLeft(sandboxIds: readonly string[]): Promise<void> {
      for (const [group, id] of groupsOf(new Set(sandboxIds))) stopRun(group, id);
      return Promise.resolve();
    },

    stop(run: Launched): Promise<void> {
      // The whole process group: the wrapper shell, the agent and whatever it started.
      // Only while the group is still the run's: a stranger that took the pid since is left alone.
      if (run.pid !== null) stopRun(run.pid, runIdOf(run));
      return Promise.resolve();
    },
  };
}
