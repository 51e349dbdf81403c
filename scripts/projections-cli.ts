/**
 * `svc projections list|rebuild [NAME]`: the projections a node keeps, and their checkpoints in
 * `<stream.store_dir>/projections.sqlite`. `rebuild` replays a projection from zero through the runner (the
 * same code path as a node's boot) on the engine the Tier A file names, discards the checkpoint it held and
 * writes a fresh one. A node resumes from its checkpoints at boot, so run it with the node stopped (on the
 * memory engine the store is single-process anyway), then start the node.
 */
import { parseFlags, unknownVerb } from './cli-suggest.js';
import { UsageError, type Out } from './cli-usage.js';
export const projectionsHelp = `Usage: svc projections list|rebuild [NAME] [--config FILE]

Every read model a node answers from is a projection kept by one runner: replayed from its stream at
boot (or resumed from its checkpoint, when its version matches), then following the live tail.

Verbs (on the store the Tier A file names; stop the node first):
  list            each projection's name, version and source, and the checkpoint held for it
                  (its version and sequence; "stale" when another version took it)
  rebuild [NAME]  replay NAME (default: every projection) from zero, discard its checkpoint and write
                  a fresh one; prints one JSON line per projection (messages replayed, sequence reached).
                  \`work\` and \`pages\` are there when the Tier A file names a native tracker or knowledge
                  base; \`work\` starts from its newest snapshot after a trim, as a node's boot does.
                  Refused (exit 1, naming the process) while the node of this node.id runs: its next
                  checkpoint save would undo the rebuild

Flags:
  -c, --config FILE   Tier A bootstrap file (YAML); default: $SVC_CONFIG
  -h, --help          show this help

Exit codes: 0 done; 1 the configuration is refused or a projection failed; 2 bad flags or an unknown NAME.
`;

export async function runProjections(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
): Promise<number> {
  const { values, positionals } = parseFlags(
    {
      args,
      options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    },
    { command: 'projections' },
  );
  const [verb, name, ...extra] = positionals;
  if (values.help || verb === 'help') {
    out.write(projectionsHelp);
    return 0;
  }
  if (verb === undefined) throw new UsageError('a verb is required: list or rebuild');
  if (verb !== 'list' && verb !== 'rebuild') throw unknownVerb('projections', verb, ['list', 'rebuild']);
  if (extra.length > 0 || (verb === 'list' && name !== undefined)) {
    throw new UsageError(`unexpected arguments: ${[...(verb === 'list' ? [name] : []), ...extra].join(' ')}`);
  }
  // Loaded once the flags hold: the help and a usage error need no bus, read models or Tier A schema.
  const [{ loadConfigFile }, { createLogger }, { runProjectionVerb }] = await Promise.all([
    import('./tier-a-file.js'),
    import('./logger.js'),
    import('./projections-run.js'),
  ]);
  const config = loadConfigFile(values.config, env, err, { offline: true });
  if (!config) return 1;
  const log = createLogger({ debug: config.debug, node: config.node.id, destination: process.stderr, env });
  return await runProjectionVerb(verb, name, config, log, out, err);
}
