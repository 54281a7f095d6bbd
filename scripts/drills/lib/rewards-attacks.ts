/**
 * The rewards drill's attackers, acting during the same month as the honest population:
 *  (a) bot: one script, 20 wallets created within minutes from one server, voting up nearly every
 *      article and yap soon after it appears, without opening the articles;
 *  (b) ring: 20 aged wallets (different addresses, common browsers) that write yaps and submit
 *      articles, upvote most of each other's, open articles like readers do, and vote on a little
 *      honest content as cover;
 *  (c) burst: 10 wallets created within two minutes from one address, all upvoting one yap and one
 *      article of an aged beneficiary account (counted in the group) within half an hour;
 *  (d) pair: two aged accounts that write yaps and submit articles and return every vote.
 */
import { BROWSERS, DAY, HOUR, type Builder, type SimUser } from './rewards-month.js';

const SCRIPT_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 HeadlessChrome/131.0 Safari/537.36';

function wallets(b: Builder, n: number, group: SimUser['group'], created: (i: number) => number, client: (i: number) => { ip: string; ua: string }): SimUser[] {
  return Array.from({ length: n }, (_, i) => b.user({ group, createdAt: created(i), type: 'human', editor: false, clients: [client(i)] }));
}

/** Authored content of a group: `subs` submissions and `yaps` yaps each, spread over the month. */
function authorFor(b: Builder, members: SimUser[], subs: number, yaps: number, editors: SimUser[]): void {
  const live = b.m.articles.filter((a) => a.status !== 'killed');
  for (const u of members) {
    for (let i = 0; i < subs; i++) b.article(u.id, b.time(), 0.3 + 0.5 * b.r(), editors);
    for (let i = 0; i < yaps; i++) {
      const a = b.pick(live);
      b.yap(a.id, u.id, Math.min(b.end - 2 * HOUR, a.at + b.r() * DAY), 0.3 + 0.3 * b.r());
    }
  }
}

/** Every member upvotes `share` of the other members' articles and yaps, soon after they appear. */
function upvoteEachOther(b: Builder, members: SimUser[], share: number, clickRate: number): void {
  const ids = new Set(members.map((m) => m.id));
  const items = [
    ...b.m.articles.filter((a) => a.by !== null && ids.has(a.by)).map((a) => ({ kind: 'article' as const, id: a.id, by: a.by!, at: a.at })),
    ...b.m.yaps.filter((y) => ids.has(y.by)).map((y) => ({ kind: 'yap' as const, id: y.id, by: y.by, at: y.at })),
  ];
  for (const it of items)
    for (const u of members) {
      if (u.id === it.by || b.r() > share) continue;
      b.vote({ kind: it.kind, targetId: it.id, by: u.id, value: 1, at: it.at + b.r() * 3 * HOUR, clicked: it.kind === 'article' && b.r() < clickRate });
    }
}

/** A few votes on honest content, in the direction the crowd will take (cover). */
function cover(b: Builder, members: SimUser[], perMember: number, outside: Set<number>): void {
  const arts = b.m.articles.filter((a) => a.by === null || !outside.has(a.by));
  for (const u of members)
    for (let i = 0; i < perMember; i++) {
      const a = b.pick(arts);
      b.vote({ kind: 'article', targetId: a.id, by: u.id, value: a.quality > 0.4 ? 1 : -1, at: a.at + b.r() * 6 * HOUR, clicked: b.r() < 0.6 });
    }
}

export function randomAttacks(b: Builder, editors: SimUser[]) {
  const t0 = b.start + 2 * HOUR + b.r() * DAY;
  const bot = wallets(
    b,
    20,
    'bot',
    (i) => t0 + i * 9_000,
    () => ({ ip: '203.0.113.7', ua: SCRIPT_UA }),
  );
  const ring = wallets(
    b,
    20,
    'ring',
    () => b.start - (30 + b.r() * 150) * DAY,
    (i) => ({ ip: `198.51.100.${10 + i}`, ua: b.pick(BROWSERS) }),
  );
  const beneficiary = wallets(
    b,
    1,
    'burst',
    () => b.start - 90 * DAY,
    () => ({ ip: '192.0.2.200', ua: b.pick(BROWSERS) }),
  );
  const t1 = b.time(b.start + 5 * DAY, b.end - 5 * DAY);
  const burst = wallets(
    b,
    10,
    'burst',
    (i) => t1 + i * 12_000,
    () => ({ ip: '192.0.2.50', ua: b.pick(BROWSERS) }),
  );
  const pair = wallets(
    b,
    2,
    'pair',
    () => b.start - (60 + b.r() * 200) * DAY,
    (i) => ({ ip: `100.64.0.${i + 1}`, ua: b.pick(BROWSERS) }),
  );
  return {
    author() {
      authorFor(b, ring, 3, 15, editors);
      authorFor(b, pair, 2, 20, editors);
      const target = b.article(beneficiary[0].id, t1 + 5 * 60_000, 0.5, editors);
      b.yap(target.id, beneficiary[0].id, t1 + 10 * 60_000, 0.4);
    },
    vote() {
      const items = [...b.m.articles.map((a) => ({ kind: 'article' as const, id: a.id, at: a.at })), ...b.m.yaps.map((y) => ({ kind: 'yap' as const, id: y.id, at: y.at }))];
      for (const u of bot)
        for (const it of items)
          if (b.r() < 0.85) b.vote({ kind: it.kind, targetId: it.id, by: u.id, value: 1, at: Math.max(it.at, u.createdAt) + b.r() * 30 * 60_000, clicked: false });
      upvoteEachOther(b, ring, 0.8, 0.6);
      cover(b, ring, 15, new Set(ring.map((u) => u.id)));
      upvoteEachOther(b, pair, 1, 0.5);
      const yap = b.m.yaps.filter((y) => y.by === beneficiary[0].id)[0];
      const target = b.m.articles[yap.articleId - 1];
      for (const u of burst) {
        b.vote({ kind: 'yap', targetId: yap.id, by: u.id, value: 1, at: t1 + 15 * 60_000 + b.r() * 10 * 60_000, clicked: false });
        b.vote({ kind: 'article', targetId: target.id, by: u.id, value: 1, at: Math.max(target.at, t1 + 15 * 60_000) + b.r() * 10 * 60_000, clicked: true });
      }
    },
  };
}
