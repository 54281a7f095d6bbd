/**
 * Query parameters that identify a click, a campaign or a sharer rather than the resource, and are
 * therefore stripped by normalizeUrl(). This is the one maintained list: edit it here.
 *
 * Source: the global rules and a few provider rules of ClearURLs
 * (https://github.com/ClearURLs/Rules, data.min.json, "globalRules" and the providers named below),
 * rewritten as exact names and prefixes (ClearURLs uses regular expressions). Deliberately left out
 * of the ClearURLs global set because they also name real parameters on news sites: the catch-all
 * `[a-z]?mc`, `spm` and `__s`. `ref` / `ref_src` / `ref_url` are tracking on almost every site but
 * select a branch or tag on code hosts, so `ref` is kept on the hosts in `refMeaningfulHosts`.
 *
 * Matching is case-insensitive on the decoded parameter name.
 */

/** Exact parameter names stripped on every host. */
export const globalTrackingParams: readonly string[] = [
  // Click identifiers of ad networks and platforms
  'fbclid',
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'twclid',
  'ttclid',
  'li_fat_id',
  'yclid',
  'ysclid',
  'igshid',
  'igsh',
  'srsltid',
  'rb_clickid',
  'wickedid',
  'epik',
  'irclickid',
  // Analytics and campaign tags
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  '__hsfp',
  '__hssc',
  '__hstc',
  'hsctatracking',
  '_openstat',
  'cmpid',
  'mkt_tok',
  'mc_cid',
  'mc_eid',
  'mc_tc',
  'ml_subscriber',
  'ml_subscriber_hash',
  'oly_anon_id',
  'oly_enc_id',
  'vero_conv',
  'vero_id',
  's_cid',
  'sc_cid',
  'wt_mc',
  'wt_zmc',
  'wtmc',
  'wtrid',
  'tracking_source',
  'trk',
  'trkcampaign',
  'ncid',
  'echobox',
  'os_ehash',
  'gs_l',
  '__twitter_impression',
  'fb_action_ids',
  'fb_action_types',
  'fb_source',
  'fb_ref',
  'action_object_map',
  'action_type_map',
  'action_ref_map',
  // Sharer and referrer tags
  'ref',
  'ref_src',
  'ref_url',
  'referrer',
  'share_id',
];

/** Parameter-name prefixes stripped on every host (utm_source, utm_medium, ...). */
export const globalTrackingPrefixes: readonly string[] = ['utm_', 'ga_', 'hmb_', 'itm_', 'otm_', 'pk_', 'mtm_', 'stm_', 'at_custom', 'vn_'];

/** Hosts (and their subdomains) where `ref` selects content (a git branch or tag): kept there. */
export const refMeaningfulHosts: readonly string[] = ['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org'];

/**
 * Provider rules: host (matches the host and its subdomains) -> extra names stripped there.
 * Names ending in `*` are prefixes.
 */
export const providerTrackingParams: Readonly<Record<string, readonly string[]>> = {
  'x.com': ['s', 't', 'src', 'cxt', 'cn', 'refsrc'],
  'youtube.com': ['si', 'feature', 'pp', 'kw'],
  'youtu.be': ['si', 'feature'],
  'medium.com': ['source', 'sk'],
  'reddit.com': ['rdt', 'ref_source', 'correlation_id', 'share_id'],
  'linkedin.com': ['trackingid', 'lipi', 'refid', 'midtoken', 'midsig', 'trk*', 'li_*'],
  'instagram.com': ['igshid', 'igsh', 'img_index'],
  'tiktok.com': ['is_from_webapp', 'sender_device', 'is_copy_url', '_r', '_t'],
  'facebook.com': ['__tn__', '__cft__*', 'mibextid', 'sfnsn'],
  'amazon.com': ['ref_', 'pd_rd_*', 'pf_rd_*', '_encoding', 'psc', 'ascsubtag'],
  'bloomberg.com': ['srnd', 'leadsource', 'embedded-checkout', 'sref', 'cmpid'],
  'theblock.co': ['source'],
  'substack.com': ['r', 'triedredirect', 'showwelcome', 'publication_id', 'post_id', 'isfreemail'],
  'telegram.me': ['single'],
};
