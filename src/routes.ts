/**
 * Every route of the service. Feature areas add their RouteDef factories here, one line each.
 */
import type { AppDeps } from './platform/deps.js';
import type { RouteDef } from './platform/http/route.js';
import { agentChatRoutes } from './agent-chat/index.js';
import { apiKeyRoutes } from './identity/index.js';
import { docsRoutes } from './api-docs/index.js';
import { editorialRoutes } from './editor/index.js';
import { eventRoutes } from './stream/index.js';
import { healthRoutes } from './ops/index.js';
import { leaderboardRoutes } from './rewards/index.js';
import { metaRoutes } from './api-docs/index.js';
import { newsRoutes } from './articles/index.js';
import { feedRoutes } from './feed/index.js';
import { profileRoutes } from './profile/index.js';
import { rewardRoutes } from './rewards/index.js';
import { telegramWebhookRoutes } from './agent-chat/index.js';
import { walletAuthRoutes } from './identity/index.js';
import { yapRoutes } from './articles/index.js';
import { provenanceRoutes } from './provenance/index.js';
import { wireRoutes } from './wire/index.js';
import { intelRoutes } from './intel/index.js';
import { paymentRoutes } from './payments/index.js';
import { sponsoredRoutes } from './sponsored/index.js';
import { webhookRoutes } from './webhooks/index.js';
import { modlogRoutes } from './editor/index.js';
import { editorRoutes } from './editor/index.js';
import { discoveryRoutes } from './mcp/index.js';
import { storyRoutes } from './stories/index.js';
import { assetRoutes } from './assets/index.js';
import { storyEditorRoutes } from './stories/index.js';
import { storyReviewRoutes } from './editor/index.js';
import { credibilityStaffRoutes } from './credibility/index.js';

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
