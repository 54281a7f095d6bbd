/**
 * Every route of the service. Each feature's routes module adds its RouteDef factory here, one line each:
 * only the web process loads this file, so the worker, clock and ws processes load no route module.
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
import { feedRoutes } from './feed/routes.js';
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
import { storyRoutes } from './stories/routes.js';
import { assetRoutes } from './assets/routes.js';
import { storyEditorRoutes } from './stories/editor-routes.js';
import { storyReviewRoutes } from './editor/story-review-routes.js';
import { credibilityStaffRoutes } from './credibility/routes.js';

export function allRoutes(deps: AppDeps): RouteDef[] {
  const routes: RouteDef[] = [
    ...healthRoutes(deps),
    ...walletAuthRoutes(deps),
    ...profileRoutes(deps),
    ...leaderboardRoutes(deps),
    ...rewardRoutes(deps),
    ...apiKeyRoutes(deps),
    // Articles: /news/check is registered before /news/:id/ (which would otherwise match it).
    ...newsRoutes(deps, feedRoutes(deps)),
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
    ...storyRoutes(deps),
    ...assetRoutes(deps),
    ...storyEditorRoutes(deps),
    ...storyReviewRoutes(deps),
    ...credibilityStaffRoutes(deps),
    ...docsRoutes(deps),
  ];
  // The document route needs the full list, itself included.
  routes.push(...metaRoutes(deps, () => routes));
  routes.push(...discoveryRoutes(deps, () => routes));
  return routes;
}
