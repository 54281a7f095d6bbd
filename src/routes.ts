/**
 * Every route of the service. Feature areas add their RouteDef factories here, one line each.
 */
import type { AppDeps } from './platform/deps.js';
import type { RouteDef } from './platform/http/route.js';
import { agentChatRoutes } from './agent-chat/routes.js';
import { apiKeyRoutes } from './identity/api-key-routes.js';
import { docsRoutes } from './api-docs/routes.js';
import { editorialRoutes } from './editor/editorial-routes.js';
import { eventRoutes } from './stream/events-routes.js';
import { healthRoutes } from './ops/health-routes.js';
import { leaderboardRoutes } from './rewards/leaderboard-routes.js';
import { metaRoutes } from './api-docs/openapi-routes.js';
import { newsRoutes } from './articles/routes.js';
import { profileRoutes } from './profile/routes.js';
import { rewardRoutes } from './rewards/routes.js';
import { telegramWebhookRoutes } from './agent-chat/telegram-routes.js';
import { walletAuthRoutes } from './identity/wallet-routes.js';
import { yapRoutes } from './articles/yap-routes.js';
import { provenanceRoutes } from './provenance/routes.js';
import { wireRoutes } from './wire/routes.js';
import { intelRoutes } from './intel/routes.js';
import { paymentRoutes } from './payments/routes.js';
import { sponsoredRoutes } from './sponsored/routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { modlogRoutes } from './editor/modlog-routes.js';
import { editorRoutes } from './editor/console-routes.js';
import { discoveryRoutes } from './mcp/discovery-routes.js';

export function allRoutes(deps: AppDeps): RouteDef[] {
  const routes: RouteDef[] = [
    ...healthRoutes(deps),
    ...walletAuthRoutes(deps),
    ...profileRoutes(deps),
    ...leaderboardRoutes(deps),
    ...rewardRoutes(deps),
    ...apiKeyRoutes(deps),
    // Articles: /news/check is registered before /news/:id/ (which would otherwise match it).
    ...newsRoutes(deps),
    ...yapRoutes(deps),
    ...editorialRoutes(deps),
    ...eventRoutes(deps),
    ...agentChatRoutes(deps),
    ...telegramWebhookRoutes(deps),
    ...provenanceRoutes(deps),
    ...wireRoutes(deps),
    ...intelRoutes(deps),
    ...sponsoredRoutes(deps),
    ...paymentRoutes(deps),
    ...webhookRoutes(deps),
    ...modlogRoutes(deps),
    ...editorRoutes(deps),
    ...docsRoutes(deps),
  ];
  // The document route needs the full list, itself included.
  routes.push(...metaRoutes(deps, () => routes));
  routes.push(...discoveryRoutes(deps, () => routes));
  return routes;
}
