/**
 * Every route of the service. Feature areas add their RouteDef factories here, one line each.
 */
import type { AppDeps } from '../deps.js';
import type { RouteDef } from '../http/route.js';
import { agentChatRoutes } from './agent-chat.js';
import { apiKeyRoutes } from './api-keys.js';
import { docsRoutes } from './docs.js';
import { editorialRoutes } from './editorial.js';
import { eventRoutes } from './events.js';
import { healthRoutes } from './health.js';
import { leaderboardRoutes } from './leaderboards.js';
import { metaRoutes } from './meta.js';
import { newsRoutes } from './news.js';
import { profileRoutes } from './profile.js';
import { rewardRoutes } from './rewards.js';
import { telegramWebhookRoutes } from './telegram-webhook.js';
import { walletAuthRoutes } from './wallet-auth.js';
import { yapRoutes } from './yaps.js';
import { provenanceRoutes } from './provenance.js';
import { wireRoutes } from './wire.js';
import { intelRoutes } from './intel.js';
import { paymentRoutes } from './payments.js';
import { sponsoredRoutes } from './sponsored.js';
import { webhookRoutes } from './webhooks.js';
import { modlogRoutes } from './modlog.js';
import { editorRoutes } from '../editor/routes.js';
import { discoveryRoutes } from './discovery.js';

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
