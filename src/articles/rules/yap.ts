/**
 * Yap (comment) rules. Pure.
 *  - Initial score by the author's account type (spec): human +1, cyborg 0, bot -1; votes add to it.
 *  - Tags: the common ones are tldr, analysis, question, correction; others are accepted when they
 *    are slugs. Tags are lower-cased and de-duplicated, order kept.
 */
// The tag syntax is the event vocabulary's: stream and webhook filters match the same tags.
export { MAX_YAP_TAG_LENGTH, YAP_TAG_PATTERN } from '../../platform/events/filter.js';

export const COMMON_YAP_TAGS = ['tldr', 'analysis', 'question', 'correction'] as const;
export const MAX_YAP_TAGS = 5;
export const MAX_YAP_LENGTH = 2000;

export function baseScoreFor(accountType: string): -1 | 0 | 1 {
  if (accountType === 'human') return 1;
  if (accountType === 'cyborg') return 0;
  return -1;
}
