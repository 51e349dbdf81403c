/** The `config` read model over this node's own stream, subjects and active pointer (serve and restore). */
import type { Logger } from 'pino';
import { activePointerKey } from '../actors/index.js';
import { Streams, Subjects, type Bus, type Kv } from '../bus/index.js';
import { followConfig, type ConfigView } from '../projections/index.js';

export const followNodeConfig = (bus: Bus, coord: Kv, logger: Logger): Promise<ConfigView> =>
  followConfig({
    bus,
    coord,
    stream: Streams.Config,
    subjects: {
      revisionStored: Subjects.configRevisionStored,
      revisionActivated: Subjects.configRevisionActivated,
    },
    activeKey: activePointerKey,
    logger: logger.child({ component: 'config.view' }),
  });
