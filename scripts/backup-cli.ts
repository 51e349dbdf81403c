/**
 * `svc backup` asks a running node for a backup (`POST /backup?dir=`) and prints its record; `svc backup list`
 * lists them. `svc restore` loads a backup into a fresh store with the node stopped (ops/backups.md).
 */
import { resolve } from 'node:path';
import { helpExit, nodeContext, nodeFlagsHelp, parseNodeArgs } from './cli-args.js';
import { requestNode } from './cli-http.js';
import { didYouMean, parseFlags } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';
import { describeRefusal } from './cli-refusal.js';
import { nodeJson } from './cli-shape.js';

export const backupHelp = `Usage: svc backup [--dir DIR] [flags]
       svc backup list [flags]

Asks a running node to back up its bus engine's estate (streams, buckets) into DIR on the engine host
and prints the finished record as JSON; 'list' prints GET /backups (the newest point per node, then every
request, failures included). DIR must be empty or absent; a relative DIR is made absolute against this
directory, and without --dir the backup goes to ./svc-backup-<UTC time>. Token from $SVC_TOKEN.

${nodeFlagsHelp}  --dir DIR        where the node writes the backup (not with list)

Exit codes: 0 done; 1 refused or failed (the answer's error code is printed); 2 bad flags.
`;

export const restoreHelp = `Usage: svc restore --from DIR [--config FILE]

Loads the backup in DIR into the fresh store the Tier A file names, with the node stopped: on the memory
engine an empty (or absent) stream.store_dir; on JetStream a server holding none of svc's streams. Every
file is checked against the manifest's SHA-256 and read through before anything is written; a refused or
failed restore leaves the store as it was. Then start the node and check it (ops/backups.md).

Flags:
  --from DIR          the backup directory (holding manifest.json)
  -c, --config FILE   Tier A bootstrap file (YAML); default: $SVC_CONFIG
  -h, --help          show this help

The keyring is not in a backup: keep secrets.keys as the backed-up node had it. An active revision sealed
under a key the file lacks is refused (the node could not start on it); stored secrets sealed under one
are kept, with a warning naming the keys.

Exit codes: 0 restored; 1 refused or failed, nothing kept (damaged or unloadable backup, a later svc
release's backup, store not fresh, engine mismatch, the active revision's key missing); 2 bad flags.
`;

/** A backup copies every stream before it answers (ops/backups.md): minutes on a large estate. */
const backupPatienceMs = 300_000;

export async function runBackup(args: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  const { values, positionals } = parseNodeArgs(args, { dir: { type: 'string' } }, 'backup');
  if (values.help) return helpExit(backupHelp, true, undefined, out, err) ?? 0;
  const [verb, ...extra] = positionals;
  if (verb !== undefined && verb !== 'list') {
    // Its one verb named as every command names its near miss; a word near none is most likely a DIR.
    const near = didYouMean(verb, ['list']);
    throw new UsageError(
      `unknown backup verb: ${verb}${near === '' ? ' (its one verb is list; the directory is given as --dir DIR)' : near}`,
    );
  }
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  // Empty, it would resolve to this directory: say so rather than ask the node to fill it.
  if (verb !== 'list' && values.dir === '')
    throw new UsageError('--dir needs a directory (empty or absent) for the backup');
  const ctx = await nodeContext(values, env, out, err);
  if (verb === 'list') {
    if (values.dir !== undefined) throw new UsageError('svc backup list takes no --dir');
    return answer(await requestNode('backup', ctx, 'GET', '/backups'), out, err);
  }
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const dir = resolve(values.dir ?? `svc-backup-${stamp}`);
  return answer(
    await requestNode(
      'backup',
      ctx,
      'POST',
      `/backup?dir=${encodeURIComponent(dir)}`,
      undefined,
      {},
      {
        patienceMs: backupPatienceMs,
      },
    ),
    out,
    err,
  );
}

async function answer(response: Response | null, out: Out, err: Out): Promise<number> {
  if (!response) return 1;
  const text = await response.text();
  if (!response.ok) {
    // Worded as every client command words a refusal: status, code, detail, the hint.
    err.write(describeRefusal(response.status, text, 'backup'));
    return 1;
  }
  out.write(`${JSON.stringify(nodeJson(response.status, text), null, 2)}\n`);
  return 0;
}

export async function runRestore(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
): Promise<number> {
  const { values, positionals } = parseFlags(
    {
      args,
      allowPositionals: true,
      strict: true,
      options: {
        from: { type: 'string' },
        config: { type: 'string', short: 'c' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    { command: 'restore' },
  );
  if (values.help) {
    out.write(restoreHelp);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  if (!values.from) throw new UsageError('--from DIR is required');
  // The Tier A schema and the bus engines load only for a restore: `svc backup` itself is a client of a
  // running node, and they were most of its start-up.
  const [{ loadConfigFile }, { createLogger }, { restoreNode }] = await Promise.all([
    import('./tier-a-file.js'),
    import('./logger.js'),
    import('./restore.js'),
  ]);
  const config = loadConfigFile(values.config, env, err, { offline: true });
  if (!config) return 1;
  const logger = createLogger({ debug: config.debug, node: config.node.id, destination: process.stderr });
  const [{ manifest, missingKeys, wrongMaterial }, { describeMissingKeys }] = await Promise.all([
    restoreNode(config, values.from, logger),
    import('./restore-keys.js'),
  ]);
  if (missingKeys.size > 0) {
    err.write(
      `svc restore: WARNING: stored secrets are sealed under keys secrets.keys lacks: ${describeMissingKeys(missingKeys)}; they are kept, and open once the key is added (until then their references resolve from the environment)\n`,
    );
  }
  if (wrongMaterial.size > 0) {
    err.write(
      `svc restore: WARNING: stored secrets are sealed under key ids whose material in secrets.keys (${config.file ?? 'the Tier A file'}) does not open them: ${describeMissingKeys(wrongMaterial)}; they are kept, and open once that id's material is set back to the backed-up node's (until then their references resolve from the environment)\n`,
    );
  }
  out.write(
    `${JSON.stringify({ restored: manifest.id, engine: manifest.engine, node: manifest.node, created_at: manifest.created_at, streams: manifest.streams }, null, 2)}\n`,
  );
  return 0;
}
