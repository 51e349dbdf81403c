/** The posture table (spec "Node configuration state"), row by row: given a posture, when a cause, then. */
import t from 'tap';
import { nextPosture, PostureCause, type PostureGiven } from '../../../actors/index.js';
import type { Posture } from '../../../schema/index.js';

const serving = (posture: Posture, before: Posture = posture): PostureGiven => ({
  posture,
  configured: true,
  before,
});
const unconfigured = (posture: Posture = 'serve'): PostureGiven => ({
  posture,
  configured: false,
  before: posture,
});

const rows: ReadonlyArray<[string, PostureGiven, PostureCause, Posture]> = [
  ['serve: an apply starts → wait', serving('serve'), PostureCause.ApplyStarted, 'wait'],
  ['shed: an apply starts → wait', serving('shed'), PostureCause.ApplyStarted, 'wait'],
  ['isolated: an apply starts → wait', serving('isolated'), PostureCause.ApplyStarted, 'wait'],
  ['unconfigured: the first apply starts → wait', unconfigured(), PostureCause.ApplyStarted, 'wait'],
  ['wait: the apply succeeds → serve', serving('wait'), PostureCause.ApplySucceeded, 'serve'],
  ['wait: the apply fails, rolled back → isolated', serving('wait'), PostureCause.RolledBack, 'isolated'],
  ['wait: the apply fails, rollback fails → stuck', serving('wait'), PostureCause.RollbackFailed, 'stuck'],
  ['wait: the revision cannot be opened → stuck', serving('wait'), PostureCause.Unopenable, 'stuck'],
  [
    'wait, from serve: the apply is postponed → serve',
    serving('wait', 'serve'),
    PostureCause.Postponed,
    'serve',
  ],
  ['wait, from shed: the apply is postponed → shed', serving('wait', 'shed'), PostureCause.Postponed, 'shed'],
  ['unconfigured: the first apply fails → serve', unconfigured('wait'), PostureCause.RolledBack, 'serve'],
  [
    'unconfigured: its rollback fails too → serve',
    unconfigured('wait'),
    PostureCause.RollbackFailed,
    'serve',
  ],
  ['serve: lagging past 45 s → shed', serving('serve'), PostureCause.Lagged, 'shed'],
  ['wait: lagging changes nothing', serving('wait'), PostureCause.Lagged, 'wait'],
  ['isolated: lagging changes nothing', serving('isolated'), PostureCause.Lagged, 'isolated'],
  ['stuck: lagging changes nothing', serving('stuck'), PostureCause.Lagged, 'stuck'],
  ['unconfigured: lagging changes nothing', unconfigured(), PostureCause.Lagged, 'serve'],
];

for (const [name, given, cause, then] of rows) {
  t.test(name, async (t) => {
    t.equal(nextPosture(given, cause), then);
  });
}
