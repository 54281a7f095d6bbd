/**
 * Demo yaps (comments) and votes, then the article counters recomputed from them so the demo rows
 * agree with each other. A yap's base score follows its author's account type (spec: human +1,
 * cyborg 0, bot -1).
 */
import { sql } from 'kysely';
import { demoUsers } from './users.js';
import { idOf, type SeedPart } from './types.js';

const baseScore = { human: 1, cyborg: 0, bot: -1 } as const;

const demoYaps: { article: string; by: (typeof demoUsers)[number]['key']; text: string; tags: string[]; hoursAgo: number }[] = [
  { article: 'uni-fee', by: 'alice', text: 'TL;DR: 1/4 of LP fees now go to staked UNI holders, starting with the ETH/USDC pools.', tags: ['tldr'], hoursAgo: 28 },
  { article: 'uni-fee', by: 'bob', text: 'LPs on the affected pools earn about 25% less; watch for liquidity moving to forks.', tags: ['analysis'], hoursAgo: 27 },
  { article: 'uni-fee', by: 'carol', text: 'Does the switch apply to v3 pools or only v4?', tags: ['question'], hoursAgo: 26 },
  { article: 'aave-v4', by: 'alice', text: 'TL;DR: one liquidity hub, many spokes; existing v3 positions are not migrated automatically.', tags: ['tldr'], hoursAgo: 18 },
  { article: 'usdc-supply', by: 'bob', text: 'Correction: the figure includes bridged USDC on L2s.', tags: ['correction'], hoursAgo: 10 },
  { article: 'arb-lido', by: 'carol', text: 'Withdrawal queue on Arbitrum is currently about 3 days.', tags: ['analysis'], hoursAgo: 5 },
];

const demoVotes: { article: string; by: string; weight: 1 | -1 }[] = [
  { article: 'uni-fee', by: 'alice', weight: 1 },
  { article: 'uni-fee', by: 'bob', weight: 1 },
  { article: 'uni-fee', by: 'carol', weight: 1 },
  { article: 'uni-fee', by: 'editor', weight: 1 },
  { article: 'aave-v4', by: 'alice', weight: 1 },
  { article: 'aave-v4', by: 'carol', weight: 1 },
  { article: 'aave-v4', by: 'staff', weight: -1 },
  { article: 'usdc-supply', by: 'bob', weight: 1 },
  { article: 'arb-lido', by: 'bob', weight: -1 },
  { article: 'uni-hack', by: 'alice', weight: -1 },
  { article: 'uni-hack', by: 'carol', weight: 1 },
];

export const discussion: SeedPart = {
  name: 'yaps and votes',
  async run(ctx) {
    for (const y of demoYaps) {
      const author = demoUsers.find((u) => u.key === y.by)!;
      await ctx.trx
        .insertInto('yaps')
        .values({
          article_id: idOf(ctx.articles, y.article),
          user_id: idOf(ctx.users, y.by),
          text: y.text,
          tags: y.tags,
          base_score: baseScore[author.account_type],
          created_at: ctx.ago(y.hoursAgo),
        })
        .execute();
    }
    for (const v of demoVotes) {
      await ctx.trx
        .insertInto('votes')
        .values({ article_id: idOf(ctx.articles, v.article), user_id: idOf(ctx.users, v.by), weight: v.weight })
        .execute();
    }
    const ids = [...ctx.articles.values()];
    await sql`
      UPDATE articles a SET
        vote_count = coalesce((SELECT sum(weight) FROM votes v WHERE v.article_id = a.id), 0),
        votes_cast = (SELECT count(*) FROM votes v WHERE v.article_id = a.id),
        yap_count = (SELECT count(*) FROM yaps y WHERE y.article_id = a.id)
      WHERE a.id = ANY(${ids})`.execute(ctx.trx);
    return demoYaps.length + demoVotes.length;
  },
};
