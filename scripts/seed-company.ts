/**
 * `svc serve --company FILE`: a node that finds nothing active anywhere in the fleet activates FILE, so a
 * first start (`npm start`) shows a company at once. It is an ordinary write through the config writer with
 * `If-None-Match: *` semantics: once anything is active (this seed on an earlier start, a write, another
 * node's seed) the file is ignored, so editing the company later never fights the seed.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { sendCommand, type Bus } from '../bus/index.js';
import { Commands, looksLikeTierAFile, parseCompanyYaml, tierAFileHint } from '../schema/index.js';

export interface SeedOutcome {
  readonly outcome: 'seeded' | 'already_configured' | 'refused';
  readonly revisionId?: string;
}

export async function seedCompany(opts: {
  bus: Pick<Bus, 'request'>;
  /** Named in logs and the revision's summary. */
  file: string;
  text: string;
  nodeId: string;
  /** True when a revision is active already (the node's view); the writer still decides under a race. */
  configured: boolean;
  logger: Logger;
}): Promise<SeedOutcome> {
  const log = opts.logger.child({ component: 'config.seed', file: opts.file });
  if (opts.configured) {
    log.info('a company is already active; the --company file is not applied');
    return { outcome: 'already_configured' };
  }
  const text = opts.text;
  const parsed = parseCompanyYaml(text);
  if (!parsed.ok) {
    log.error(
      { problems: parsed.problems },
      'the --company file is not a readable document; nothing is active',
    );
    return { outcome: 'refused' };
  }
  const reply = await sendCommand(opts.bus, Commands.config.write, {
    document: parsed.value,
    basis_revision_id: null,
    precondition: { if_none_match_any: true },
    rules: 'write',
    dry_run: false,
    actor: { id: opts.nodeId, kind: 'node' },
    source: 'cli',
    summary: `first company, from ${opts.file}`,
    yaml_text: text,
    revision_id: randomUUID(),
  });
  if (reply.outcome === 'stored') {
    const warnings = reply.warnings.map(warningAt);
    log.info(
      { revision_id: reply.revision_id, warning_count: warnings.length, warnings },
      'company activated from the --company file',
    );
    return { outcome: 'seeded', revisionId: reply.revision_id };
  }
  if (reply.outcome === 'refused' && reply.error === 'already_configured') {
    log.info('another writer activated a company first; the --company file is not applied');
    return { outcome: 'already_configured' };
  }
  const problems = reply.outcome === 'refused' ? (reply.problems ?? []) : [];
  // The node's own start file given as the company: its unknown fields alone do not say the file is wrong.
  const hint = looksLikeTierAFile(parsed.value) ? { hint: tierAFileHint } : {};
  log.error(
    { error: reply.outcome === 'refused' ? reply.error : reply.outcome, problems, ...hint },
    'the --company file was refused; the node serves unconfigured',
  );
  return { outcome: 'refused' };
}

/**
 * A warning of the activated file as the log names it: its code (`kind`), path and line, as `svc config
 * put` lists them, never its message or the names it quotes (`to`, `from`): a log is kept and shipped
 * where an answer is not. `svc config validate FILE` says the rest.
 */
function warningAt(warning: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return {
    kind: warning['kind'],
    path: warning['path'],
    ...(typeof warning['line'] === 'number' ? { line: warning['line'] } : {}),
  };
}
