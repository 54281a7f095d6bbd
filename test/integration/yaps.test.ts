import { beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../support/auth.js';
import { useTestApp } from '../support/app.js';

const BASE = 'http://api.example';
const app = useTestApp(
  {
    human: { username: 'hugh', accountType: 'human' },
    cyborg: { username: 'cy', accountType: 'cyborg' },
    bot: { username: 'robo', accountType: 'bot' },
    editor: { roles: ['editor'] },
  },
  { PUBLIC_BASE_URL: BASE },
);
let articleId: number;

beforeAll(async () => {
  articleId = (await app.http.post('/api/v1/news/post', { url: 'https://yaps.example/story', headline: 'Yap here' }, app.human.bearer)).body.article_id;
  await app.http.post(`/api/v1/news/${articleId}/approve`, undefined, app.editor.bearer);
});

const yap = (s: Session, body: unknown, id = articleId) => app.http.post(`/api/v1/news/${id}/post_yap`, body, s.bearer);

describe('POST /news/:id/post_yap', () => {
  it('starts the score by account type: human +1, cyborg 0, bot -1', async () => {
    const h = await yap(app.human, { text: '  A human take  ', tags: ['analysis'] });
    expect(h.status).toBe(201);
    expect(h.body).toEqual({
      success: true,
      yap_id: expect.any(Number),
      article_id: articleId,
      text: 'A human take',
      tags: ['analysis'],
      created_at: expect.stringMatching(/Z$/),
      score: 1,
      base_score: 1,
      vote_score: 0,
      author: { id: app.human.userId, username: 'hugh', ethereum_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), account_type: 'human' },
    });
    expect((await yap(app.cyborg, { text: 'cyborg take' })).body).toMatchObject({ score: 0, base_score: 0, tags: [] });
    expect((await yap(app.bot, { text: 'bot take' })).body).toMatchObject({ score: -1, base_score: -1 });
    const a = await app.http.get(`/api/v1/news/${articleId}/`);
    expect(a.body.yap_count).toBe(3);
  });

  it('normalises tags: lower-cased, de-duplicated; uncommon slugs accepted', async () => {
    const r = await yap(app.human, { text: 'tagged', tags: ['TLDR', 'tldr', 'Market-Structure', 'correction'] });
    expect(r.status).toBe(201);
    expect(r.body.tags).toEqual(['tldr', 'market-structure', 'correction']);
  });

  it('validates text and tags', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.text'],
      [{ text: '   ' }, 'body.text'],
      [{ text: 'x'.repeat(2001) }, 'body.text'],
      [{ text: 5 }, 'body.text'],
      [{ text: 'ok', tags: 'tldr' }, 'body.tags'],
      [{ text: 'ok', tags: ['has space'] }, 'body.tags.0'],
      [{ text: 'ok', tags: [''] }, 'body.tags.0'],
      [{ text: 'ok', tags: ['a--b'] }, 'body.tags.0'],
      [{ text: 'ok', tags: ['x'.repeat(33)] }, 'body.tags.0'],
      [{ text: 'ok', tags: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'body.tags'],
      [{ text: 'ok', score: 10 }, 'body.score'],
    ];
    for (const [body, path] of cases) {
      const r = await yap(app.human, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(path);
    }
  });

  it('401 anonymous, 404 unknown article, 409 on a killed article', async () => {
    expect((await app.http.post(`/api/v1/news/${articleId}/post_yap`, { text: 'x' })).status).toBe(401);
    const missing = await yap(app.human, { text: 'x' }, 999999);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('article_not_found');
    const other = (await app.http.post('/api/v1/news/post', { url: 'https://yaps.example/killed', headline: 'To kill' }, app.human.bearer)).body.article_id;
    await app.http.post(`/api/v1/news/${other}/kill`, undefined, app.editor.bearer);
    const closed = await yap(app.human, { text: 'too late' }, other);
    expect(closed.status).toBe(409);
    expect(closed.body.error).toMatchObject({ code: 'article_closed', details: { current_status: 'killed' } });
  });
});

describe('GET /news/:id/list_yaps', () => {
  let ids: number[];
  let listArticle: number;
  beforeAll(async () => {
    listArticle = (await app.http.post('/api/v1/news/post', { url: 'https://yaps.example/list', headline: 'List' }, app.editor.bearer)).body.article_id;
    await app.http.post(`/api/v1/news/${listArticle}/approve`, undefined, app.editor.bearer);
    ids = [];
    for (const [s, text] of [
      [app.bot, 'first (bot)'],
      [app.human, 'second (human)'],
      [app.cyborg, 'third (cyborg)'],
      [app.human, 'fourth (human)'],
    ] as const) {
      ids.push((await yap(s, { text }, listArticle)).body.yap_id);
    }
  });

  it('sorts top (score desc, oldest first), new and old; pages with links', async () => {
    const top = await app.http.get(`/api/v1/news/${listArticle}/list_yaps`);
    expect(top.status).toBe(200);
    expect(top.body.count).toBe(4);
    expect(top.body.results.map((y: { yap_id: number }) => y.yap_id)).toEqual([ids[1], ids[3], ids[2], ids[0]]);
    const nw = await app.http.get(`/api/v1/news/${listArticle}/list_yaps?sort=new`);
    expect(nw.body.results.map((y: { yap_id: number }) => y.yap_id)).toEqual([...ids].reverse());
    const old = await app.http.get(`/api/v1/news/${listArticle}/list_yaps?sort=old&per_page=3`);
    expect(old.body.results.map((y: { yap_id: number }) => y.yap_id)).toEqual(ids.slice(0, 3));
    expect(old.body.next).toBe(`${BASE}/api/v1/news/${listArticle}/list_yaps?sort=old&per_page=3&page=2`);
    const p2 = await app.http.get(`/api/v1/news/${listArticle}/list_yaps?sort=old&per_page=3&page=2`);
    expect(p2.body.results.map((y: { yap_id: number }) => y.yap_id)).toEqual([ids[3]]);
    expect(p2.body.next).toBeNull();
    expect(p2.body.previous).toBe(`${BASE}/api/v1/news/${listArticle}/list_yaps?sort=old&per_page=3`);
    expect(top.body.results[0]).not.toHaveProperty('my_vote');
    const mine = await app.http.get(`/api/v1/news/${listArticle}/list_yaps`, app.cyborg.bearer);
    expect(mine.body.results[0].my_vote).toBe(0);
  });

  it('400 on bad parameters, 404 on unknown or hidden articles', async () => {
    for (const qs of ['sort=best', 'per_page=101', 'page=0', 'x=1']) {
      const r = await app.http.get(`/api/v1/news/${listArticle}/list_yaps?${qs}`);
      expect(r.status, qs).toBe(400);
    }
    expect((await app.http.get('/api/v1/news/999999/list_yaps')).status).toBe(404);
    const pending = (await app.http.post('/api/v1/news/post', { url: 'https://yaps.example/pending', headline: 'Pending' }, app.human.bearer)).body.article_id;
    expect((await app.http.get(`/api/v1/news/${pending}/list_yaps`)).status).toBe(404);
    expect((await app.http.get(`/api/v1/news/${pending}/list_yaps`, app.human.bearer)).status).toBe(200);
  });
});

describe('POST /news/:id/yaps/:yap_id/vote', () => {
  it("adds votes to the yap's base score; changing and clearing is exact; the feed's top_tldr follows the scores", async () => {
    const a = (await app.http.post('/api/v1/news/post', { url: 'https://yaps.example/tldr', headline: 'TLDR race' }, app.editor.bearer)).body.article_id;
    await app.http.post(`/api/v1/news/${a}/approve`, undefined, app.editor.bearer);
    const y1 = (await yap(app.human, { text: 'human summary', tags: ['tldr'] }, a)).body.yap_id;
    const y2 = (await yap(app.cyborg, { text: 'cyborg summary', tags: ['tldr'] }, a)).body.yap_id;
    const voterless = await app.session();
    // Every caller shares the briefly cached page: a yap vote retires it when the relay
    // relays its article.voted event (no relay runs in this file, so the page's expiry does).
    const feedTldr = async () => (await app.http.get('/api/v1/news/?sort_type=new&per_page=100', voterless.bearer)).body.results.find((x: { id: number }) => x.id === a).top_tldr;
    expect((await feedTldr()).yap_id).toBe(y1);

    const voters = await Promise.all(Array.from({ length: 3 }, () => app.session()));
    const r = await app.http.post(`/api/v1/news/${a}/yaps/${y2}/vote`, { weight: 1 }, voters[0].bearer);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ yap_id: y2, weight: 1, vote_score: 1, score: 1 });
    await Promise.all(voters.slice(1).map((v) => app.http.post(`/api/v1/news/${a}/yaps/${y2}/vote`, { weight: 1 }, v.bearer)));
    await expect.poll(feedTldr, { timeout: 5000, interval: 100 }).toMatchObject({ yap_id: y2, score: 3, text: 'cyborg summary' });
    const down = await app.http.post(`/api/v1/news/${a}/yaps/${y2}/vote`, { weight: -1 }, voters[0].bearer);
    expect(down.body).toEqual({ yap_id: y2, weight: -1, vote_score: 1, score: 1 });
    const clear = await app.http.post(`/api/v1/news/${a}/yaps/${y2}/vote`, { weight: 0 }, voters[0].bearer);
    expect(clear.body).toEqual({ yap_id: y2, weight: 0, vote_score: 2, score: 2 });
    const listed = await app.http.get(`/api/v1/news/${a}/list_yaps`, voters[1].bearer);
    expect(listed.body.results[0]).toMatchObject({ yap_id: y2, my_vote: 1, score: 2 });
  });

  it('is exact under concurrent votes', async () => {
    const a = (await app.http.post('/api/v1/news/post', { url: 'https://yaps.example/concurrent', headline: 'Concurrent yap votes' }, app.editor.bearer)).body.article_id;
    const y = (await yap(app.human, { text: 'vote me' }, a)).body.yap_id;
    const voters = await Promise.all(Array.from({ length: 30 }, () => app.session()));
    await Promise.all(
      voters.flatMap((v, i) => [
        app.http.post(`/api/v1/news/${a}/yaps/${y}/vote`, { weight: i % 2 ? 1 : -1 }, v.bearer),
        app.http.post(`/api/v1/news/${a}/yaps/${y}/vote`, { weight: 1 }, v.bearer),
      ]),
    );
    const row = await app.deps.db.selectFrom('yaps').select(['vote_score', 'score']).where('id', '=', y).executeTakeFirstOrThrow();
    const sum = await app.deps.db
      .selectFrom('yap_votes')
      .select((eb) => eb.fn.sum<number>('weight').as('s'))
      .where('yap_id', '=', y)
      .executeTakeFirstOrThrow();
    expect(row.vote_score).toBe(Number(sum.s));
    expect(row.score).toBe(1 + Number(sum.s));
  });

  it('403 on your own yap, 404 for a yap of another article or unknown, 400 bad weight, 401 anonymous', async () => {
    const a = (await app.http.post('/api/v1/news/post', { url: 'https://yaps.example/rules', headline: 'Rules' }, app.editor.bearer)).body.article_id;
    const y = (await yap(app.human, { text: 'mine' }, a)).body.yap_id;
    const own = await app.http.post(`/api/v1/news/${a}/yaps/${y}/vote`, { weight: 1 }, app.human.bearer);
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe('cannot_vote_own_yap');
    const wrong = await app.http.post(`/api/v1/news/${articleId}/yaps/${y}/vote`, { weight: 1 }, app.cyborg.bearer);
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe('yap_not_found');
    expect((await app.http.post(`/api/v1/news/${a}/yaps/999999/vote`, { weight: 1 }, app.cyborg.bearer)).status).toBe(404);
    expect((await app.http.post(`/api/v1/news/${a}/yaps/${y}/vote`, { weight: 5 }, app.cyborg.bearer)).status).toBe(400);
    expect((await app.http.post(`/api/v1/news/${a}/yaps/${y}/vote`, { weight: 1 })).status).toBe(401);
  });
});
