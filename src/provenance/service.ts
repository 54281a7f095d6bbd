/**
 * Provenance use cases: the check (run on a worker, awaited or polled by the web process), the
 * search of curated articles, the receipts of an article, and the upkeep of the headline index.
 */
import type { AppDeps } from '../platform/deps.js';
import type { Db } from '../platform/db.js';
import type { Config } from '../platform/config.js';
import { DomainError } from '../platform/errors/index.js';
import { API_PREFIX } from '../platform/http/openapi.js';
import { JobFailedError } from '../platform/queue.js';
import { listEdits } from '../articles/index.js';
import { checkProvenance, ingestReceipt, searchCurated, pruneHeadlineIndex, receiptArticle, refreshCommonWords, topTldr, topYaps } from './queries.js';
import type { ProvenanceCheckResult } from './rules/check.js';
import { provenanceSettings } from './rules/settings.js';
import { LOOKBACK_MS } from './rules/verdict.js';

/** The answer to a check or a poll: the result, or the id of the job still running. */
export type CheckOutcome = { state: 'completed'; result: ProvenanceCheckResult } | { state: 'pending'; jobId: string };

const PUBLIC_STATUSES = ['approved', 'retracted'];
const TOP_COMMENTS = 5;
/** Rows are kept this long: the lookback window plus a day, so a check never misses a row being pruned. */
const HEADLINE_INDEX_RETENTION_MS = LOOKBACK_MS + 24 * 3600 * 1000;

function checkFailed(jobId: string): DomainError {
  return new DomainError('provenance_check_failed', 'the provenance check could not be completed; send it again', { job_id: jobId }, { headers: { 'Retry-After': '2' } });
}

/** Enqueues the check and waits up to JOB_WAIT_MS for the worker's result. */
export async function startCheck(deps: AppDeps, input: { url?: string; text?: string }): Promise<CheckOutcome> {
  let outcome;
  try {
    outcome = await deps.queue.enqueueAndWait('provenance-check', { url: input.url, text: input.text }, deps.config.JOB_WAIT_MS);
  } catch (err) {
    if (err instanceof JobFailedError) throw checkFailed(err.jobId);
    throw err;
  }
  if (outcome.state === 'pending') return { state: 'pending', jobId: outcome.jobId };
  return { state: 'completed', result: outcome.result };
}

/** The state of a check that answered 202 (results are kept for 1 hour). */
export async function pollCheck(deps: AppDeps, jobId: string): Promise<CheckOutcome> {
  const queue = deps.queue.queue('provenance-check');
  const notFound = () => new DomainError('provenance_job_not_found', `no provenance check ${jobId} (results are kept for 1 hour)`);
  // The state first, then the job: a job read first and found completed a moment later would
  // still hold no result (a poll at the instant of completion answered an empty 204).
  const state = await queue.getJobState(jobId);
  if (state === 'completed') {
    const job = await queue.getJob(jobId);
    if (!job?.returnvalue) throw notFound(); // removed since (results are kept for 1 hour)
    return { state: 'completed', result: job.returnvalue as ProvenanceCheckResult };
  }
  if (state === 'failed') throw checkFailed(jobId);
  if (state === 'unknown') throw notFound();
  return { state: 'pending', jobId };
}

/** The check itself, as the provenance-check job runs it. Read-only. */
/** A check as answered: the result, or (still running) the pending state with the URL to poll. */
export function checkAnswer(
  outcome: CheckOutcome,
): { pending: false; body: ProvenanceCheckResult } | { pending: true; body: { status: 'pending'; job_id: string; poll_url: string } } {
  if (outcome.state === 'completed') return { pending: false, body: outcome.result };
  const pollUrl = `${API_PREFIX}/provenance/check/${outcome.jobId}`;
  return { pending: true, body: { status: 'pending', job_id: outcome.jobId, poll_url: pollUrl } };
}

/** Curated articles of the last `days` days matching `q`, best first (GET /provenance/search). */
export async function searchArticles(deps: AppDeps, query: { q: string; days: number; limit: number }) {
  const { q, days, limit } = query;
  const hits = await searchCurated(deps.db, q, days, limit);
  return {
    results: hits.map((h) => ({
      news_id: h.id,
      headline: h.headline,
      url: h.url,
      canonical_url: h.normalized_url,
      source: h.source,
      tags: h.tags,
      published_at: (h.published_at ?? h.created_at).toISOString(),
      relevance: h.relevance,
    })),
    count: hits.length,
    q,
    days,
    limit,
  };
}

export function runCheck(deps: { db: Db; config: Config }, input: { url?: string; text?: string }): Promise<ProvenanceCheckResult> {
  return checkProvenance(deps.db, input, { now: new Date(), trgmThreshold: provenanceSettings(deps.config).trgmThreshold });
}

/** An article with its TLDR, top comments, wire receipt and edit history; 404 for an unpublished one unless signed in. */
export async function articleReceipts(db: Db, id: number, signedIn: boolean) {
  const article = await receiptArticle(db, id);
  if (!article || (!PUBLIC_STATUSES.includes(article.status) && !signedIn)) throw new DomainError('article_not_found', `article ${id} not found`);
  const [tldr, yaps, wire, edits] = await Promise.all([topTldr(db, id), topYaps(db, id, TOP_COMMENTS), ingestReceipt(db, id), listEdits(db, id)]);
  return { article, tldr, yaps, wire, edits };
}

/** Prunes the headline index to the lookback window (plus a day) and recomputes the common words. */
export async function maintainHeadlineIndex(db: Db, now: number): Promise<{ deleted: number; commonWords: number }> {
  const deleted = await pruneHeadlineIndex(db, new Date(now - HEADLINE_INDEX_RETENTION_MS));
  const commonWords = await refreshCommonWords(db, new Date(now - LOOKBACK_MS));
  return { deleted, commonWords };
}
