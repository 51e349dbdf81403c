import t from 'tap';
import { companyOf } from '../../actors/seat/seat.profile.js';
import { colleaguesOf } from '../../actors/toolservers/index.js';
import { Company } from '../../schema/index.js';

const document = Company.parse({
  name: 'Acme',
  units: [
    {
      name: 'Eng',
      type: 'team',
      lead: 'Ada',
      roles: [{ name: 'Ada' }, { name: 'Bob' }, { name: 'Cy', manages: ['Ops'] }],
      children: [{ name: 'Web', type: 'team', roles: [{ name: 'Dee' }] }],
    },
    { name: 'Ops', type: 'team', roles: [{ name: 'Eve' }, { name: 'Hu', kind: 'human' }] },
  ],
  roles: [{ name: 'Fay', manages: ['ada'] }],
});

t.test('a seat is managed by whoever names it or its unit in manages, else by its unit lead', async (t) => {
  const seats = companyOf(document).seats;
  t.equal(seats.get('ada')?.manager, 'fay', 'named by handle in manages');
  t.equal(seats.get('bob')?.manager, 'ada', 'the unit lead');
  t.equal(seats.get('dee')?.manager, 'ada', 'a child unit inherits the lead');
  t.equal(seats.get('eve')?.manager, 'cy', 'its unit named in manages');
  t.equal(seats.get('fay')?.manager, null, 'nobody manages the top');
});

t.test('reports list every colleague a seat manages, humans included, in document order', async (t) => {
  const seats = companyOf(document).seats;
  t.same(seats.get('ada')?.reports, ['bob', 'cy', 'dee']);
  t.same(seats.get('cy')?.reports, ['eve', 'hu']);
  t.same(seats.get('fay')?.reports, ['ada']);
  t.same(seats.get('bob')?.reports, []);
  t.notOk(seats.has('hu'), 'a human seat is not profiled');
});

t.test('a thousand seats in units of ten are profiled with their leads and reports', async (t) => {
  const units = Array.from({ length: 100 }, (_, u) => ({
    name: `U${u}`,
    type: 'team' as const,
    lead: `s${u * 10}`,
    roles: Array.from({ length: 10 }, (_, i) => ({ handle: `s${u * 10 + i}`, name: `Seat ${u * 10 + i}` })),
  }));
  const seats = companyOf(Company.parse({ name: 'Big', units })).seats;
  t.equal(seats.size, 1000);
  t.equal(seats.get('s537')?.manager, 's530');
  t.same(seats.get('s530')?.reports, [
    's531',
    's532',
    's533',
    's534',
    's535',
    's536',
    's537',
    's538',
    's539',
  ]);
});

t.test(
  "a child unit's own lead is managed by the lead of the unit above it, and is among its reports",
  async (t) => {
    const seats = companyOf(
      Company.parse({
        name: 'Acme',
        units: [
          {
            name: 'Eng',
            type: 'department',
            lead: 'Ada',
            roles: [{ name: 'Ada' }],
            children: [
              {
                name: 'Web',
                type: 'team',
                lead: 'Dee',
                roles: [{ name: 'Dee' }, { name: 'Eli' }],
                children: [{ name: 'Mobile', type: 'team', lead: 'Mo', roles: [{ name: 'Mo' }] }],
              },
            ],
          },
        ],
      }),
    ).seats;
    t.equal(seats.get('eli')?.manager, 'dee', 'a member: its unit lead');
    t.equal(seats.get('dee')?.manager, 'ada', 'the team lead: the department lead');
    t.equal(seats.get('mo')?.manager, 'dee', 'the nearest lead above, not the top');
    t.equal(seats.get('ada')?.manager, null, 'the top lead has none');
    t.same(seats.get('ada')?.reports, ['dee']);
    t.same(seats.get('dee')?.reports, ['eli', 'mo']);
  },
);

t.test(
  'a unit lead written as a handle names that seat alone, though another seat bears it as its name',
  async (t) => {
    const document = Company.parse({
      name: 'Acme',
      units: [
        {
          name: 'Eng',
          type: 'team',
          lead: 'bob',
          roles: [{ name: 'bob', handle: 'boss' }, { name: 'Carl', handle: 'bob' }, { name: 'Dan' }],
        },
      ],
    });
    const seats = companyOf(document).seats;
    t.equal(seats.get('dan')?.manager, 'bob', 'the lead the schedules and /org name');
    t.equal(seats.get('boss')?.manager, 'bob');
    t.same(
      colleaguesOf(document).map((c) => [c.handle, c.lead_of]),
      [
        ['boss', []],
        ['bob', ['Eng']],
        ['dan', []],
      ],
      'org_lookup names one lead',
    );
  },
);

t.test(
  'a manages entry naming a handle manages that seat, not the seat bearing it as its name',
  async (t) => {
    const seats = companyOf(
      Company.parse({
        name: 'Acme',
        roles: [
          { name: 'bob', handle: 'boss' },
          { name: 'Carl', handle: 'bob' },
          { name: 'Eve', manages: ['bob'] },
        ],
      }),
    ).seats;
    t.equal(seats.get('bob')?.manager, 'eve');
    t.equal(seats.get('boss')?.manager, null);
    t.same(seats.get('eve')?.reports, ['bob']);
  },
);
