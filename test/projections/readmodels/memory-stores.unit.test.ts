import t from 'tap';
import { ReadModels } from '../../../projections/index.js';
import { companyDoc, event } from '../fixtures/readmodels.js';

const profile = (person: string, updated: string, count: number) => ({
  subject_label: person,
  subject_handle: person,
  subject_external_id: `U-${person}`,
  subject_platform: 'chat',
  subject_name: null,
  traits: {},
  interaction_count: count,
  first_seen_at: '2026-01-01T00:00:00Z',
  last_updated_at: updated,
  last_corroborated_at: null,
});

t.test(
  'memory view profiles join the events and the profile store, the newer copy of each person',
  async (t) => {
    const stored = [
      profile('old', '2026-01-05T00:00:00Z', 2),
      profile('both', '2026-11-01T00:00:00Z', 9),
      profile('ahead', '2026-11-22T00:00:00Z', 5),
      { subject_label: 'unreadable' },
    ];
    let cto = '';
    const m = new ReadModels({
      now: () => Date.parse('2026-11-23T12:00:00Z'),
      profileStore: {
        profiles: (agentId: string): Promise<unknown[]> => Promise.resolve(agentId === cto ? stored : []),
      },
    });
    m.setCompany(companyDoc, 'rev-1');
    cto = m.agentList().find((r) => r.id === 'cto')!.agent_id!;
    const at = '2026-11-20T00:00:00Z';
    m.applyEvent(
      event('counterparty_profile_updated', 'cto', profile('both', '2026-11-20T00:00:00Z', 12), at),
    );
    m.applyEvent(
      event('counterparty_profile_updated', 'cto', profile('ahead', '2026-11-21T00:00:00Z', 4), at),
    );
    const view = (await m.memoryOf('cto'))!;
    t.same(
      view.counterparty_profiles.map((p) => [p.subject_label, p.interaction_count]),
      [
        ['ahead', 5],
        ['both', 12],
        ['old', 2],
      ],
      'newest last_updated_at first; an unreadable stored one is left out',
    );
    const failing = new ReadModels({ profileStore: { profiles: () => Promise.reject(new Error('down')) } });
    failing.setCompany(companyDoc, 'rev-1');
    failing.applyEvent(event('counterparty_profile_updated', 'cto', profile('both', at, 1), at));
    t.same(
      (await failing.memoryOf('cto'))!.counterparty_profiles.map((p) => p.subject_label),
      ['both'],
      'a failing store leaves the profiles the events announced',
    );
  },
);

const skill = (id: string, version: number, updated: string) => ({
  id,
  name: id,
  description: '',
  content: `v${version}`,
  tool_sequence: [],
  version,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: updated,
});

t.test(
  'memory view skills join the events and the skill store, the higher version of each skill',
  async (t) => {
    const stored = [
      skill('old', 1, '2026-01-05T00:00:00Z'),
      skill('both', 2, '2026-11-01T00:00:00Z'),
      { id: 'x' },
    ];
    const m = new ReadModels({ skillStore: { skills: () => Promise.resolve(stored) } });
    m.setCompany(companyDoc, 'rev-1');
    const at = '2026-11-20T00:00:00Z';
    m.applyEvent(event('skill_synthesized', 'cto', skill('both', 3, at), at));
    m.applyEvent(event('skill_synthesized', 'cto', skill('new', 1, '2026-11-21T00:00:00Z'), at));
    t.same(
      (await m.memoryOf('cto'))!.synthesized_skills.map((s) => [s.id, s.version]),
      [
        ['new', 1],
        ['both', 3],
        ['old', 1],
      ],
      'newest updated_at first; an unreadable stored one is left out',
    );
  },
);
