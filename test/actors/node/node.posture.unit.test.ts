/** The posture table (spec "Node configuration state"), row by row: given a posture, when a cause, then. */
import t from 'tap';
import { nextPosture, PostureCause, type PostureGiven } from '../../../actors/index.js';
import type { Posture } from '../../../schema/index.js';

const serving = (posture: Posture, before: Posture = posture): PostureGiven => ({
  posture,
  configured: true,
  fallback: true,
  before,
});
/** A node running nothing; `fallback`: a revision it applied before the failing epoch can be brought back. */
const unconfigured = (posture: Posture = 'serve', fallback = false): PostureGiven => ({
  posture,
  configured: false,
  fallback,
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
  [
    'unconfigured, nothing to fall back to: the apply fails → stuck',
    unconfigured('wait'),
    PostureCause.RolledBack,
    'stuck',
  ],
  [
    'unconfigured, nothing to fall back to: its rollback fails too → stuck',
    unconfigured('wait'),
    PostureCause.RollbackFailed,
    'stuck',
  ],
  [
    'unconfigured: the revision cannot be opened → stuck',
    unconfigured('wait'),
    PostureCause.Unopenable,
    'stuck',
  ],
  [
    'unconfigured after a restart, an older revision to bring back: the apply fails → isolated',
    unconfigured('wait', true),
    PostureCause.RolledBack,
    'isolated',
  ],
  [
    'unconfigured and stuck: a retry starts → stuck',
    unconfigured('stuck'),
    PostureCause.ApplyStarted,
    'stuck',
  ],
  ['stuck while serving: an apply starts → wait', serving('stuck'), PostureCause.ApplyStarted, 'wait'],
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
