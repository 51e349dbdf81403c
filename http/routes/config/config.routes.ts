/** Every `/config` route (guarded, reads too; `Cache-Control: no-store` comes from the gateway). */
import type { RouteDef } from '../../types.js';
import { configReadRoutes } from './config.reads.js';
import { configWriteRoutes, type ConfigWriteDeps } from './config.writes.js';

export type ConfigRouteDeps = ConfigWriteDeps;

export function configRoutes(deps: ConfigRouteDeps): RouteDef[] {
  return [...configReadRoutes(deps), ...configWriteRoutes(deps)];
}
