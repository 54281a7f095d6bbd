/**
 * Every route of the service. Feature areas add their RouteDef factories here, one line each.
 */
import type { AppDeps } from '../deps.js';
import type { RouteDef } from '../http/route.js';
import { apiKeyRoutes } from './api-keys.js';
import { healthRoutes } from './health.js';
import { metaRoutes } from './meta.js';
import { profileRoutes } from './profile.js';
import { walletAuthRoutes } from './wallet-auth.js';

export function allRoutes(deps: AppDeps): RouteDef[] {
  const routes: RouteDef[] = [
    ...healthRoutes(deps),
    ...walletAuthRoutes(deps),
    ...profileRoutes(deps),
    ...apiKeyRoutes(deps),
  ];
  // The document route needs the full list, itself included.
  routes.push(...metaRoutes(deps, () => routes));
  return routes;
}
