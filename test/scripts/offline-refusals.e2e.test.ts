/**
 * The offline commands' refusals of what an operator mistypes, on built `svc` processes: a `svc replay`
 * subject filter or stream name the bus cannot take is a bad flag (exit 2, the flag named), judged before any
 * store is opened; a `svc restore --from` that does not exist says so, rather than calling it an unfinished
 * backup.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runSvc } from '../harness/child.js';

/** A Tier A file on a memory store that does not exist: a refusal judged from the flags never reaches it. */
function tierA(t: Test): { dir: string; configFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-offline-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const configFile = join(dir, 'config.yaml');
  writeFileSync(
    configFile,
    `providers: {queue: {type: memory}}\nstream: {store_dir: ${join(dir, 'data')}}\napi: {port: 0}\n`,
  );
  return { dir, configFile };
}

async function svc(t: Test, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const run = runSvc(args);
  t.teardown(() => run.kill('SIGKILL'));
  const code = await run.exited;
  return { code, stderr: run.stderr() };
}

t.test('svc replay refuses a subject filter or stream name the bus cannot take as a bad flag', async (t) => {
  const { configFile } = tierA(t);
  const cases: Array<[string[], RegExp]> = [
    [['--stream', 'SVC_EVENTS', '--subject', ''], /^svc: --subject: invalid subject "": empty\n/],
    [
      ['--stream', 'SVC_EVENTS', '--subject', 'svc..x'],
      /^svc: --subject: invalid subject "svc\.\.x": empty token\n/,
    ],
    [['--stream', 'SVC_EVENTS', '--subject', 'svc.>.x'], /^svc: --subject: .*">" must be the last token\n/],
    [['--stream', 'SVC EVENTS'], /^svc: --stream: invalid stream name "SVC EVENTS"/],
  ];
  for (const [flags, why] of cases) {
    const run = await svc(t, ['replay', '--config', configFile, ...flags]);
    t.equal(run.code, 2, `${flags.join(' ')}: ${run.stderr}`);
    t.match(run.stderr, why);
    t.match(run.stderr, /Run 'svc replay --help' for usage\.\n$/);
    t.notMatch(run.stderr, /no store/, 'judged before the store is opened');
  }
});

t.test('svc restore --from a directory that does not exist says so', async (t) => {
  const { dir, configFile } = tierA(t);
  const missing = join(dir, 'backups', '2026-05-01');
  const absent = await svc(t, ['restore', '--from', missing, '--config', configFile]);
  t.equal(absent.code, 1);
  t.equal(absent.stderr, `svc: the backup directory ${missing} does not exist\n`);

  // A manifest.json that is no file is named with why it cannot be read, not called an unfinished backup.
  const odd = join(dir, 'odd');
  mkdirSync(join(odd, 'manifest.json'), { recursive: true });
  const unreadable = await svc(t, ['restore', '--from', odd, '--config', configFile]);
  t.equal(unreadable.code, 1);
  t.equal(unreadable.stderr, `svc: ${join(odd, 'manifest.json')} cannot be read (EISDIR)\n`);

  const empty = join(dir, 'empty');
  mkdirSync(empty);
  const unfinished = await svc(t, ['restore', '--from', empty, '--config', configFile]);
  t.equal(unfinished.code, 1);
  t.match(unfinished.stderr, /manifest\.json cannot be read: not a finished backup/, 'as before');
});
