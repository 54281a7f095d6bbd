/**
 * The job registry: the only list of jobs. The job-name union and payload types derive from it;
 * the worker starts one BullMQ worker per entry and the web process enqueues by name.
 */
import type { z } from 'zod';
import { job as leaderboards } from './leaderboards.js';
import { job as monthlyDistribution } from './monthly-distribution.js';
import { job as ping } from './ping.js';
import { job as publishDue } from './publish-due.js';
import { job as publishScheduled } from './publish-scheduled.js';
import { job as handshakeExpire } from './handshake-expire.js';
import { job as agentModeration } from './agent-moderation.js';
import { job as agentTrustReview } from './agent-trust-review.js';
import { job as telegramSendMessage } from './telegram-send-message.js';
import { job as telegramApplyTrust } from './telegram-apply-trust.js';
import { job as pageTitle } from './page-title.js';
import { job as hotScores } from './hot-scores.js';
import { job as provenanceCheck } from './provenance-check.js';
import { job as provenanceHeadlinesMaintain } from './provenance-headlines-maintain.js';
import { job as wireFetch } from './wire-fetch.js';
import { job as wireFetchDue } from './wire-fetch-due.js';
import { job as wirePromote } from './wire-promote.js';
import { job as intelTrending } from './intel-trending.js';
import { job as intelReport } from './intel-report.js';
import { job as settlePayment } from './settle-payment.js';
import { job as relayEvents } from './relay-events.js';
import { job as eventLogPrune } from './event-log-prune.js';
import { job as pageTitleSweep } from './page-title-sweep.js';
import { job as webhookDeliver } from './webhook-deliver.js';
import { job as webhookSweep } from './webhook-sweep.js';
import { job as webhookPrune } from './webhook-prune.js';
import { job as wirePrune } from './wire-prune.js';
import { job as telegramUpdatesPrune } from './telegram-updates-prune.js';
import { job as paymentsPrune } from './payments-prune.js';
import { job as apiKeysPrune } from './api-keys-prune.js';
import { job as storyAssign } from './story-assign.js';
import { job as assetTag } from './asset-tag.js';
import { job as credibilityRecompute } from './credibility-recompute.js';
import { job as assetTokenListsRefresh } from './asset-token-lists-refresh.js';
import { job as assetMindshare } from './asset-mindshare.js';
import { job as credibilityVote } from './credibility-vote.js';

export const jobs = {
  ping,
  'publish-scheduled': publishScheduled,
  'publish-due': publishDue,
  leaderboards,
  'monthly-distribution': monthlyDistribution,
  'handshake-expire': handshakeExpire,
  'agent-moderation': agentModeration,
  'agent-trust-review': agentTrustReview,
  'telegram-send-message': telegramSendMessage,
  'telegram-apply-trust': telegramApplyTrust,
  'page-title': pageTitle,
  'hot-scores': hotScores,
  'provenance-check': provenanceCheck,
  'provenance-headlines-maintain': provenanceHeadlinesMaintain,
  'wire-fetch': wireFetch,
  'wire-fetch-due': wireFetchDue,
  'wire-promote': wirePromote,
  'intel-trending': intelTrending,
  'intel-report': intelReport,
  'settle-payment': settlePayment,
  'relay-events': relayEvents,
  'event-log-prune': eventLogPrune,
  'page-title-sweep': pageTitleSweep,
  'webhook-deliver': webhookDeliver,
  'webhook-sweep': webhookSweep,
  'webhook-prune': webhookPrune,
  'wire-prune': wirePrune,
  'telegram-updates-prune': telegramUpdatesPrune,
  'payments-prune': paymentsPrune,
  'api-keys-prune': apiKeysPrune,
  'story-assign': storyAssign,
  'asset-tag': assetTag,
  'credibility-recompute': credibilityRecompute,
  'asset-token-lists-refresh': assetTokenListsRefresh,
  'asset-mindshare': assetMindshare,
  'credibility-vote': credibilityVote,
} as const;

export type Jobs = typeof jobs;
export type JobName = keyof Jobs;
export type JobPayload<N extends JobName> = z.input<Jobs[N]['payload']>;
export type JobResult<N extends JobName> = Awaited<ReturnType<Jobs[N]['run']>>;
export const jobNames = Object.keys(jobs) as JobName[];
