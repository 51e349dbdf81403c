/**
 * The YAML an operator copies out of the docs works: every fenced `yaml` block in the README and ops/ is
 * accepted by the validator it is written for — the Tier A file's, or the company document's (a fragment is
 * laid over a minimal company with the seat `ada` the examples name) — and no example points a model or
 * embeddings server at the address `npm start` serves the node on, where the node would be calling itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { parseCompanyYaml, validateCompany } from '../../schema/company/index.js';
import { parseTierA } from '../../schema/index.js';
import { root } from '../harness/child.js';
import { operatorDocs } from './docs.js';

interface Block {
  readonly where: string;
  readonly text: string;
}

function yamlBlocks(): Block[] {
  const blocks: Block[] = [];
  for (const doc of operatorDocs()) {
    const lines = readFileSync(join(root, doc), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^```ya?ml\s*$/.test(lines[i]!)) continue;
      const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
      blocks.push({ where: `${doc}:${i + 1}`, text: lines.slice(i + 1, end).join('\n') });
      i = end;
    }
  }
  return blocks;
}

/** Files of other programs the docs show (Prometheus' scrape configuration). */
const foreign = (value: Record<string, unknown>): boolean => 'scrape_configs' in value;

const base = {
  name: 'Acme',
  mission: 'Ship useful things',
  roles: [{ name: 'Ada', goal: 'Keep the lights on', responsibilities: ['triage'] }],
};
const env = { SVC_TOKEN: 'token', SVC_NATS_TOKEN: 'nats' };

/** Problems of the block read as a company document (a fragment over `base`), or null when accepted. */
function companyProblems(block: Block, value: Record<string, unknown>): string | null {
  const whole = 'name' in value ? value : { ...base, ...value };
  const text = 'name' in value ? block.text : JSON.stringify(whole);
  const parsed = parseCompanyYaml(text);
  if (!parsed.ok) return JSON.stringify(parsed);
  const result = validateCompany(parsed.value, { mode: 'write' });
  return result.valid ? null : result.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
}

const blocks = yamlBlocks();

t.test('the docs hold YAML examples of both files', async (t) => {
  t.ok(blocks.length >= 10, `${blocks.length} blocks`);
});

t.test('every YAML example in the docs is accepted by the Tier A or the company validator', async (t) => {
  const refused: string[] = [];
  for (const block of blocks) {
    const value = parse(block.text) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      refused.push(`${block.where}: not a map`);
      continue;
    }
    const map = value as Record<string, unknown>;
    if (foreign(map)) continue;
    const tierA = parseTierA(block.text, { env, cwd: '/srv/svc' });
    if (tierA.ok) continue;
    const company = companyProblems(block, map);
    if (company !== null)
      refused.push(`${block.where}: company: ${company}; Tier A: ${JSON.stringify(tierA)}`);
  }
  t.same(refused, [], 'every example accepted');
});

t.test('no example sends model calls to the address npm start serves the node on', async (t) => {
  const own = /\b(?:127\.0\.0\.1|localhost):8080\b/;
  const selfCalls = blocks
    .filter((block) => /base_url:/.test(block.text))
    .flatMap((block) =>
      block.text
        .split('\n')
        .filter((line) => /base_url:/.test(line) && own.test(line.replace(/#.*$/, '')))
        .map((line) => `${block.where}: ${line.trim()}`),
    );
  t.same(selfCalls, [], 'model servers listen elsewhere than the node (api.port 8080)');
});
