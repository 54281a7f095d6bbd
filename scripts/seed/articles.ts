/**
 * Demo articles in every state (submitted, approved, killed, scheduled, retracted), with tags,
 * tokens and an issuer, on reserved `.example` domains so no link points at a real site.
 * Counters (votes, yaps) are filled in by the discussion part from the rows it inserts.
 */
import { slugify } from '../../src/platform/url/slug.js';
import { normalizeUrl } from '../../src/platform/url/normalize.js';
import { idOf, type SeedPart } from './types.js';

const tokens = {
  UNI: '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984',
  AAVE: '0x7fc66500c84a76ad7e9c93437bfc5ac33e2ddae9',
  USDC: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
  LDO: '0x5a98fcbea516cf06857215779fd812ca3bef1b32',
  ARB: '0x912ce59144191c1204e64559fe8253a0e49e6548',
} as const;

type Symbol = keyof typeof tokens;
type Status = 'submitted' | 'approved' | 'killed' | 'scheduled' | 'retracted';

interface DemoArticle {
  key: string;
  status: Status;
  headline: string;
  url: string;
  source: string;
  by: string;
  /** Hours before now that it was submitted. */
  submittedAgo: number;
  tokens?: Symbol[];
  tags?: string[];
  issuer?: { name: string; website: string };
  content_type?: string;
  clicks?: number;
}

const demoArticles: DemoArticle[] = [
  {
    key: 'uni-fee',
    status: 'approved',
    headline: 'Uniswap DAO votes to turn on the protocol fee switch',
    url: 'https://defi-daily.example/uniswap-fee-switch-vote',
    source: 'DeFi Daily',
    by: 'alice',
    submittedAgo: 30,
    tokens: ['UNI'],
    tags: ['governance', 'dex'],
    issuer: { name: 'Uniswap Foundation', website: 'https://uniswap.example' },
    content_type: 'governance_proposal',
    clicks: 412,
  },
  {
    key: 'aave-v4',
    status: 'approved',
    headline: 'Aave v4 launches on mainnet with a unified liquidity layer',
    url: 'https://chain-wire.example/aave-v4-mainnet',
    source: 'Chain Wire',
    by: 'bob',
    submittedAgo: 20,
    tokens: ['AAVE'],
    tags: ['lending', 'launch'],
    issuer: { name: 'Aave Labs', website: 'https://aave.example' },
    clicks: 268,
  },
  {
    key: 'usdc-supply',
    status: 'approved',
    headline: 'USDC supply passes 80 billion as on-chain payments grow',
    url: 'https://stablecoin-times.example/usdc-supply-80bn',
    source: 'Stablecoin Times',
    by: 'carol',
    submittedAgo: 12,
    tokens: ['USDC'],
    tags: ['stablecoins', 'markets'],
    clicks: 97,
  },
  {
    key: 'arb-lido',
    status: 'approved',
    headline: 'Lido brings staked ETH withdrawals to Arbitrum',
    url: 'https://l2-beat-news.example/lido-arbitrum-withdrawals',
    source: 'L2 News',
    by: 'alice',
    submittedAgo: 6,
    tokens: ['LDO', 'ARB'],
    tags: ['staking', 'layer2'],
    clicks: 51,
  },
  {
    key: 'bridge-exploit',
    status: 'submitted',
    headline: 'Cross-chain bridge pauses deposits after an exploit report',
    url: 'https://security-desk.example/bridge-pause',
    source: 'Security Desk',
    by: 'bob',
    submittedAgo: 2,
    tags: ['security'],
  },
  {
    key: 'arb-grants',
    status: 'submitted',
    headline: 'Arbitrum DAO proposes a new round of builder grants',
    url: 'https://l2-beat-news.example/arbitrum-grants-round',
    source: 'L2 News',
    by: 'carol',
    submittedAgo: 1,
    tokens: ['ARB'],
    tags: ['governance', 'grants'],
    content_type: 'governance_proposal',
  },
  {
    key: 'moon-coin',
    status: 'killed',
    headline: 'This coin will 100x by Friday, insiders say',
    url: 'https://pump-news.example/moon-coin-100x',
    source: 'Pump News',
    by: 'carol',
    submittedAgo: 26,
    tags: ['markets'],
  },
  {
    key: 'aave-gho',
    status: 'scheduled',
    headline: 'Aave community call on GHO stability module changes',
    url: 'https://chain-wire.example/aave-gho-community-call',
    source: 'Chain Wire',
    by: 'alice',
    submittedAgo: 4,
    tokens: ['AAVE'],
    tags: ['stablecoins', 'governance'],
    issuer: { name: 'Aave Labs', website: 'https://aave.example' },
  },
  {
    key: 'uni-hack',
    status: 'retracted',
    headline: 'Uniswap front end reported compromised (retracted: report was false)',
    url: 'https://rumour-mill.example/uniswap-frontend',
    source: 'Rumour Mill',
    by: 'bob',
    submittedAgo: 40,
    tokens: ['UNI'],
    tags: ['security'],
    clicks: 133,
  },
];

export const articles: SeedPart = {
  name: 'articles',
  async run(ctx) {
    const editor = idOf(ctx.users, 'editor');
    for (const a of demoArticles) {
      const created = ctx.ago(a.submittedAgo);
      const reviewed = a.status === 'submitted' ? null : ctx.ago(a.submittedAgo - 0.5);
      const published = a.status === 'approved' || a.status === 'retracted' ? reviewed : null;
      const row = await ctx.trx
        .insertInto('articles')
        .values({
          slug: slugify(a.headline),
          headline: a.headline,
          url: a.url,
          normalized_url: normalizeUrl(a.url)!,
          source: a.source,
          status: a.status,
          origin: 'manual',
          submitted_by: idOf(ctx.users, a.by),
          created_at: created,
          updated_at: a.status === 'retracted' ? ctx.ago(a.submittedAgo - 3) : (reviewed ?? created),
          published_at: published,
          scheduled_for: a.status === 'scheduled' ? new Date(ctx.now.getTime() + 2 * 3600_000) : null,
          reviewed_by: reviewed ? editor : null,
          reviewed_at: reviewed,
          token_addresses: (a.tokens ?? []).map((s) => tokens[s]),
          token_symbols: [...(a.tokens ?? [])],
          issuer_name: a.issuer?.name ?? null,
          issuer_website: a.issuer?.website ?? null,
          tags: a.tags ?? [],
          content_type: a.content_type ?? null,
          clicks: a.clicks ?? 0,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ctx.articles.set(a.key, row.id);
    }
    return demoArticles.length;
  },
};
