/**
 * The honest side of the rewards drill's simulated month (scripts/drills/rewards.ts): uneven,
 * heavy-tailed activity (a lognormal activity level, five power users far above everyone else, six
 * editors, about 8% of accounts joining during the month), wire items and submissions of varying
 * quality that editors approve or kill, yaps, and votes cast by each account's own noisy judgement.
 * Pure and seeded. Times are milliseconds since the epoch.
 */
export type Group = 'honest' | 'bot' | 'ring' | 'burst' | 'pair';

export interface SimUser {
  id: number;
  group: Group;
  createdAt: number;
  type: 'human' | 'cyborg';
  editor: boolean;
  /** Fingerprints as (address, user agent) pairs, raw; the drill stores them hashed. */
  clients: { ip: string; ua: string }[];
}

interface SimArticle {
  id: number;
  by: number | null;
  at: number;
  quality: number;
  status: 'approved' | 'killed' | 'submitted';
  reviewedBy: number | null;
  reviewedAt: number | null;
}

interface SimYap {
  id: number;
  articleId: number;
  by: number;
  at: number;
  quality: number;
}

interface SimVote {
  kind: 'article' | 'yap';
  targetId: number;
  by: number;
  value: 1 | -1;
  at: number;
  clicked: boolean;
}

export interface SimMonth {
  users: SimUser[];
  articles: SimArticle[];
  yaps: SimYap[];
  votes: SimVote[];
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const normal = (r: () => number) => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());

/** Common browser user agents: many honest accounts share one (as they do in real traffic). */
export const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
];

export class Builder {
  readonly m: SimMonth = { users: [], articles: [], yaps: [], votes: [] };
  private voted = new Set<string>();
  constructor(
    readonly r: () => number,
    readonly start: number,
    readonly end: number,
  ) {}

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)];
  }
  time(from = this.start, to = this.end - HOUR): number {
    return Math.floor(from + this.r() * Math.max(0, to - from));
  }
  user(u: Omit<SimUser, 'id'>): SimUser {
    const full = { ...u, id: this.m.users.length + 1 };
    this.m.users.push(full);
    return full;
  }
  article(by: number | null, at: number, quality: number, editors: SimUser[]): SimArticle {
    const id = this.m.articles.length + 1;
    const reviewer = by === null ? null : (editors.filter((e) => e.id !== by).map((e) => e.id)[Math.floor(this.r() * (editors.length - 1))] ?? null);
    const reviewedAt = by === null ? at : at + HOUR + this.r() * 11 * HOUR;
    const decided = by === null || reviewedAt < this.end - HOUR;
    const status = !decided ? 'submitted' : by === null || quality + 0.15 * normal(this.r) > 0.35 ? 'approved' : 'killed';
    const a: SimArticle = { id, by, at, quality, status, reviewedBy: decided ? reviewer : null, reviewedAt: decided ? reviewedAt : null };
    this.m.articles.push(a);
    return a;
  }
  yap(articleId: number, by: number, at: number, quality: number): SimYap {
    const y = { id: this.m.yaps.length + 1, articleId, by, at, quality };
    this.m.yaps.push(y);
    return y;
  }
  vote(v: SimVote): void {
    const k = `${v.kind}:${v.targetId}:${v.by}`;
    if (v.at >= this.end || this.voted.has(k)) return;
    // Killed articles take no votes once decided (the API answers 409 article_closed).
    const a = v.kind === 'article' ? this.m.articles[v.targetId - 1] : null;
    if (a && a.status === 'killed' && a.reviewedAt !== null && v.at >= a.reviewedAt) return;
    this.voted.add(k);
    this.m.votes.push(v);
  }
}

export function honestUsers(b: Builder, n: number): SimUser[] {
  const out: SimUser[] = [];
  for (let i = 0; i < n; i++) {
    const joinsNow = b.r() < 0.08;
    const createdAt = joinsNow ? b.time() : b.start - (7 + b.r() * 700) * DAY;
    const ip = b.r() < 0.1 && out.length ? out[out.length - 1].clients[0].ip : `10.${i >> 8}.${i & 255}.${1 + Math.floor(b.r() * 250)}`;
    const clients = [{ ip, ua: b.pick(BROWSERS) }];
    if (b.r() < 0.4) clients.push({ ip: `172.16.${i >> 8}.${i & 255}`, ua: b.pick(BROWSERS) });
    out.push(b.user({ group: 'honest', createdAt, type: b.r() < 0.1 ? 'cyborg' : 'human', editor: i < 6, clients }));
  }
  return out;
}

/** How active each honest account is: lognormal, and a few power users far above everyone else. */
export function activityLevels(b: Builder, users: SimUser[]): Map<number, number> {
  const level = new Map<number, number>();
  users.forEach((u, i) => level.set(u.id, Math.exp(1.1 * normal(b.r)) * (i >= 6 && i < 11 ? 8 : 1)));
  return level;
}

export function honestContent(b: Builder, users: SimUser[], level: Map<number, number>, editors: SimUser[]): void {
  const total = [...level.values()].reduce((s, x) => s + x, 0);
  for (let i = 0; i < 250; i++) b.article(null, b.time(), 0.3 + 0.7 * b.r(), editors);
  for (let i = 0; i < 600; i++) {
    let x = b.r() * total;
    const by = users.find((u) => (x -= level.get(u.id)!) <= 0) ?? users[0];
    b.article(by.id, b.time(Math.max(b.start, by.createdAt)), b.r(), editors);
  }
  const articles = b.m.articles.filter((a) => a.status !== 'killed');
  for (const u of users) {
    const n = Math.round(6 * level.get(u.id)! * b.r());
    const skill = 0.3 + 0.6 * b.r();
    for (let k = 0; k < n; k++) {
      const a = b.pick(articles);
      const at = Math.max(a.at, u.createdAt) + b.r() * 2 * DAY;
      if (at < b.end - HOUR) b.yap(a.id, u.id, at, Math.min(1, Math.max(0, skill + 0.2 * normal(b.r))));
    }
  }
}

/** Honest votes: each account votes on items it sees, by its own (noisy) judgement of their quality. */
export function honestVotes(b: Builder, users: SimUser[], level: Map<number, number>): void {
  const items = [
    ...b.m.articles.map((a) => ({ kind: 'article' as const, id: a.id, by: a.by, at: a.at, q: a.quality })),
    ...b.m.yaps.map((y) => ({ kind: 'yap' as const, id: y.id, by: y.by, at: y.at, q: y.quality })),
  ];
  for (const u of users) {
    const share = Math.min(0.4, 0.012 * level.get(u.id)!);
    const clickRate = 0.35 + 0.6 * b.r();
    const noise = 0.1 + 0.25 * b.r();
    for (const it of items) {
      if (it.by === u.id || b.r() > share * (0.5 + it.q)) continue;
      const at = Math.max(it.at, u.createdAt) + b.r() * b.r() * 2 * DAY;
      b.vote({ kind: it.kind, targetId: it.id, by: u.id, value: it.q + noise * normal(b.r) > 0.4 ? 1 : -1, at, clicked: it.kind === 'article' && b.r() < clickRate });
    }
  }
}
