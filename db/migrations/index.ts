/**
 * Every migration, in order. Listed explicitly (not discovered on disk) so the same list runs under
 * tsx, vitest and any bundler. Add new files at the end; never edit or reorder landed ones.
 */
import type { Migration } from 'kysely';
import * as m20261122T020000 from './20261122T020000_foundation.js';
import * as m20261122T030000 from './20261122T030000_identity.js';
import * as m20261122T040000 from './20261122T040000_provenance_wire.js';
import * as m20261122T050000 from './20261122T050000_news_engagement.js';
import * as m20261122T070000 from './20261122T070000_leaderboards_rewards.js';
import * as m20261122T080000 from './20261122T080000_agent_chat.js';
import * as m20261122T093000 from './20261122T093000_payments.js';
import * as m20261122T100000 from './20261122T100000_provenance_headline_index.js';
import * as m20261122T100500 from './20261122T100500_provenance_common_words.js';
import * as m20261123T100000 from './20261123T100000_article_hot_scores.js';
import * as m20261124T100000 from './20261124T100000_event_log.js';
import * as m20261124T120000 from './20261124T120000_event_log_attrs.js';
import * as m20261124T130000 from './20261124T130000_event_log_commit_order.js';
import * as m20261125T100000 from './20261125T100000_webhooks.js';
import * as m20261125T170000 from './20261125T170000_feed_filters.js';
import * as m20261125T180000 from './20261125T180000_kill_reasons.js';
import * as m20261125T210000 from './20261125T210000_media_retention.js';
import * as m20261125T210500 from './20261125T210500_media_from_disk.js';
import * as m20261126T010000 from './20261126T010000_payment_delivery.js';
import * as m20261126T090000 from './20261126T090000_event_log_lean_commit.js';
import * as m20261126T100000 from './20261126T100000_feed_covering_indexes.js';
import * as m20261127T090000 from './20261127T090000_event_log_commit_lookup.js';
import * as m20261128T090000 from './20261128T090000_event_log_insert_time_ids.js';
import * as m20261129T090000 from './20261129T090000_event_log_draw_once_per_transaction.js';
import * as m20261129T100000 from './20261129T100000_event_log_record.js';
import * as m20261130T090000 from './20261130T090000_event_log_record_attrs_lookup.js';
import * as m20261130T100000 from './20261130T100000_event_log_draw_without_notify.js';
import * as m20261130T110000 from './20261130T110000_event_log_drop_write_functions.js';
import * as m20261201T100000 from './20261201T100000_stories.js';
import * as m20261201T110000 from './20261201T110000_assets.js';
import * as m20261201T120000 from './20261201T120000_credibility.js';
import * as m20261202T090000 from './20261202T090000_event_assets.js';
import * as m20261202T100000 from './20261202T100000_story_edits.js';
import * as m20261202T110000 from './20261202T110000_credibility_evidence.js';
import * as m20261203T100000 from './20261203T100000_story_promotion.js';
import * as m20261203T120000 from './20261203T120000_credibility_decisions.js';
import * as m20261204T100000 from './20261204T100000_credibility_weight_written_at.js';
import * as m20261205T100000 from './20261205T100000_credibility_flags_members.js';
import * as m20261206T100000 from './20261206T100000_event_asset_tokens.js';
import * as m20261207T100000 from './20261207T100000_article_page_meta.js';
import * as m20261208T100000 from './20261208T100000_credibility_product.js';

export const migrations: Record<string, Migration> = {
  '20261122T020000_foundation': m20261122T020000,
  '20261122T030000_identity': m20261122T030000,
  '20261122T040000_provenance_wire': m20261122T040000,
  '20261122T050000_news_engagement': m20261122T050000,
  '20261122T070000_leaderboards_rewards': m20261122T070000,
  '20261122T080000_agent_chat': m20261122T080000,
  '20261122T093000_payments': m20261122T093000,
  '20261122T100000_provenance_headline_index': m20261122T100000,
  '20261122T100500_provenance_common_words': m20261122T100500,
  '20261123T100000_article_hot_scores': m20261123T100000,
  '20261124T100000_event_log': m20261124T100000,
  '20261124T120000_event_log_attrs': m20261124T120000,
  '20261124T130000_event_log_commit_order': m20261124T130000,
  '20261125T100000_webhooks': m20261125T100000,
  '20261125T170000_feed_filters': m20261125T170000,
  '20261125T180000_kill_reasons': m20261125T180000,
  '20261125T210000_media_retention': m20261125T210000,
  '20261125T210500_media_from_disk': m20261125T210500,
  '20261126T010000_payment_delivery': m20261126T010000,
  '20261126T090000_event_log_lean_commit': m20261126T090000,
  '20261126T100000_feed_covering_indexes': m20261126T100000,
  '20261127T090000_event_log_commit_lookup': m20261127T090000,
  '20261128T090000_event_log_insert_time_ids': m20261128T090000,
  '20261129T090000_event_log_draw_once_per_transaction': m20261129T090000,
  '20261129T100000_event_log_record': m20261129T100000,
  '20261130T090000_event_log_record_attrs_lookup': m20261130T090000,
  '20261130T100000_event_log_draw_without_notify': m20261130T100000,
  '20261130T110000_event_log_drop_write_functions': m20261130T110000,
  '20261201T100000_stories': m20261201T100000,
  '20261201T110000_assets': m20261201T110000,
  '20261201T120000_credibility': m20261201T120000,
  '20261202T090000_event_assets': m20261202T090000,
  '20261202T100000_story_edits': m20261202T100000,
  '20261202T110000_credibility_evidence': m20261202T110000,
  '20261203T100000_story_promotion': m20261203T100000,
  '20261203T120000_credibility_decisions': m20261203T120000,
  '20261204T100000_credibility_weight_written_at': m20261204T100000,
  '20261205T100000_credibility_flags_members': m20261205T100000,
  '20261206T100000_event_asset_tokens': m20261206T100000,
  '20261207T100000_article_page_meta': m20261207T100000,
  '20261208T100000_credibility_product': m20261208T100000,
};
