import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let human: Session;
let cyborg: Session;
let bot: Session;
let editor: Session;
let articleId: number;
const BASE = 'http://api.example';

beforeAll(async () => {
  deps = await createTestDeps({ PUBLIC_BASE_URL: BASE });
  http = request(createApp(deps));
  human = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'hugh', accountType: 'human' });
  cyborg = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'cy', accountType: 'cyborg' });
  bot = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'robo', accountType: 'bot' });
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'] });
  articleId = (await http.post('/api/v1/news/post', { url: 'https://yaps.example/story', headline: 'Yap here' }, human.bearer)).body.article_id;
  await http.post(`/api/v1/news/${articleId}/approve`, undefined, editor.bearer);
});
afterAll(async () => {
  await http.close();
  await deps.close();
});

const yap = (s: Session, body: unknown, id = articleId) => http.post(`/api/v1/news/${id}/post_yap`, body, s.bearer);

describe('POST /news/:id/post_yap', () => {
  it('starts the score by account type: human +1, cyborg 0, bot -1', async () => {
    const h = await yap(human, { text: '  A human take  ', tags: ['analysis'] });
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
      author: { id: human.userId, username: 'hugh', ethereum_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), account_type: 'human' },
    });
    expect((await yap(cyborg, { text: 'cyborg take' })).body).toMatchObject({ score: 0, base_score: 0, tags: [] });
    expect((await yap(bot, { text: 'bot take' })).body).toMatchObject({ score: -1, base_score: -1 });
    const a = await http.get(`/api/v1/news/${articleId}/`);
    expect(a.body.yap_count).toBe(3);
  });

  it('normalises tags: lower-cased, de-duplicated; uncommon slugs accepted', async () => {
    const r = await yap(human, { text: 'tagged', tags: ['TLDR', 'tldr', 'Market-Structure', 'correction'] });
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
      const r = await yap(human, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(path);
    }
  });

  it('401 anonymous, 404 unknown article, 409 on a killed article', async () => {
    expect((await http.post(`/api/v1/news/${articleId}/post_yap`, { text: 'x' })).status).toBe(401);
    const missing = await yap(human, { text: 'x' }, 999999);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('article_not_found');
    const other = (await http.post('/api/v1/news/post', { url: 'https://yaps.example/killed', headline: 'To kill' }, human.bearer)).body.article_id;
    await http.post(`/api/v1/news/${other}/kill`, undefined, editor.bearer);
    const closed = await yap(human, { text: 'too late' }, other);
    expect(closed.status).toBe(409);
    expect(closed.body.error).toMatchObject({ code: 'article_closed', details: { current_status: 'killed' } });
  });
});

describe('GET /news/:id/list_yaps', () => {
  let ids: number[];
  let listArticle: number;
  beforeAll(async () => {
    listArticle = (await http.post('/api/v1/news/post', { url: 'https://yaps.example/list', headline: 'List' }, editor.bearer)).body.article_id;
    await http.post(`/api/v1/news/${listArticle}/approve`, undefined, editor.bearer);
    ids = [];
    for (const [s, text] of [
      [bot, 'first (bot)'],
      [human, 'second (human)'],
      [cyborg, 'third (cyborg)'],
      [human, 'fourth (human)'],
    ] as const) {
      ids.push((await yap(s, { text }, listArticle)).body.yap_id);
    }
  });

  it('sorts top (score desc, oldest first), new and old; pages with links', async () => {
    const top = await http.get(`/api/v1/news/${listArticle}/list_yaps`);
    expect(top.status).toBe(200);
    expect(top.body.count).toBe(4);
    expect(top.body.results.map((y: { yap_id: number }) => y.yap_id)).toEqual([ids[1], ids[3], ids[2], ids[0]]);
    const nw = await http.get(`/api/v1/news/${listArticle}/list_yaps?sort=new`);
    expect(nw.body.results.map((y: { yap_id: number }) => y.yap_id)).toEqual([...ids].reverse());
    const old = await http.get(`/api/v1/news/${listArticle}/list_yaps?sort=old&per_page=3`);
    expect(old.body.results.map((y: { yap_id: number }) => y.yap_id)).toEqual(ids.slice(0, 3));
    expect(old.body.next).toBe(`${BASE}/api/v1/news/${listArticle}/list_yaps?sort=old&per_page=3&page=2`);
    const p2 = await http.get(`/api/v1/news/${listArticle}/list_yaps?sort=old&per_page=3&page=2`);
    expect(p2.body.results.map((y: { yap_id: number }) => y.yap_id)).toEqual([ids[3]]);
    expect(p2.body.next).toBeNull();
    expect(p2.body.previous).toBe(`${BASE}/api/v1/news/${listArticle}/list_yaps?sort=old&per_page=3`);
    expect(top.body.results[0]).not.toHaveProperty('my_vote');
    const mine = await http.get(`/api/v1/news/${listArticle}/list_yaps`, cyborg.bearer);
    expect(mine.body.results[0].my_vote).toBe(0);
  });

  it('400 on bad parameters, 404 on unknown or hidden articles', async () => {
    for (const qs of ['sort=best', 'per_page=101', 'page=0', 'x=1']) {
      const r = await http.get(`/api/v1/news/${listArticle}/list_yaps?${qs}`);
      expect(r.status, qs).toBe(400);
    }
    expect((await http.get('/api/v1/news/999999/list_yaps')).status).toBe(404);
    const pending = (await http.post('/api/v1/news/post', { url: 'https://yaps.example/pending', headline: 'Pending' }, human.bearer)).body.article_id;
    expect((await http.get(`/api/v1/news/${pending}/list_yaps`)).status).toBe(404);
    expect((await http.get(`/api/v1/news/${pending}/list_yaps`, human.bearer)).status).toBe(200);
  });
});

describe('POST /news/:id/yaps/:yap_id/vote', () => {
  it("adds votes to the yap's base score; changing and clearing is exact; the feed's top_tldr follows the scores", async () => {
    const a = (await http.post('/api/v1/news/post', { url: 'https://yaps.example/tldr', headline: 'TLDR race' }, editor.bearer)).body.article_id;
    await http.post(`/api/v1/news/${a}/approve`, undefined, editor.bearer);
    const y1 = (await yap(human, { text: 'human summary', tags: ['tldr'] }, a)).body.yap_id;
    const y2 = (await yap(cyborg, { text: 'cyborg summary', tags: ['tldr'] }, a)).body.yap_id;
    const voterless = await sessionFor(deps.db, deps.config.JWT_SECRET);
    // Every caller shares the briefly cached page: a yap vote retires it when the relay
    // relays its article.voted event (no relay runs in this file, so the page's expiry does).
    const feedTldr = async () => (await http.get('/api/v1/news/?sort_type=new&per_page=100', voterless.bearer)).body.results.find((x: { id: number }) => x.id === a).top_tldr;
    expect((await feedTldr()).yap_id).toBe(y1);

    const voters = await Promise.all(Array.from({ length: 3 }, () => sessionFor(deps.db, deps.config.JWT_SECRET)));
    const r = await http.post(`/api/v1/news/${a}/yaps/${y2}/vote`, { weight: 1 }, voters[0].bearer);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ yap_id: y2, weight: 1, vote_score: 1, score: 1 });
    await Promise.all(voters.slice(1).map((v) => http.post(`/api/v1/news/${a}/yaps/${y2}/vote`, { weight: 1 }, v.bearer)));
    await expect.poll(feedTldr, { timeout: 5000, interval: 100 }).toMatchObject({ yap_id: y2, score: 3, text: 'cyborg summary' });
    const down = await http.post(`/api/v1/news/${a}/yaps/${y2}/vote`, { weight: -1 }, voters[0].bearer);
    expect(down.body).toEqual({ yap_id: y2, weight: -1, vote_score: 1, score: 1 });
    const clear = await http.post(`/api/v1/news/${a}/yaps/${y2}/vote`, { weight: 0 }, voters[0].bearer);
    expect(clear.body).toEqual({ yap_id: y2, weight: 0, vote_score: 2, score: 2 });
    const listed = await http.get(`/api/v1/news/${a}/list_yaps`, voters[1].bearer);
    expect(listed.body.results[0]).toMatchObject({ yap_id: y2, my_vote: 1, score: 2 });
  });

  it('is exact under concurrent votes', async () => {
    const a = (await http.post('/api/v1/news/post', { url: 'https://yaps.example/concurrent', headline: 'Concurrent yap votes' }, editor.bearer)).body.article_id;
    const y = (await yap(human, { text: 'vote me' }, a)).body.yap_id;
    const voters = await Promise.all(Array.from({ length: 30 }, () => sessionFor(deps.db, deps.config.JWT_SECRET)));
    await Promise.all(
      voters.flatMap((v, i) => [
        http.post(`/api/v1/news/${a}/yaps/${y}/vote`, { weight: i % 2 ? 1 : -1 }, v.bearer),
        http.post(`/api/v1/news/${a}/yaps/${y}/vote`, { weight: 1 }, v.bearer),
      ]),
    );
    const row = await deps.db.selectFrom('yaps').select(['vote_score', 'score']).where('id', '=', y).executeTakeFirstOrThrow();
    const sum = await deps.db
      .selectFrom('yap_votes')
      .select((eb) => eb.fn.sum<number>('weight').as('s'))
      .where('yap_id', '=', y)
      .executeTakeFirstOrThrow();
    expect(row.vote_score).toBe(Number(sum.s));
    expect(row.score).toBe(1 + Number(sum.s));
  });

  it('403 on your own yap, 404 for a yap of another article or unknown, 400 bad weight, 401 anonymous', async () => {
    const a = (await http.post('/api/v1/news/post', { url: 'https://yaps.example/rules', headline: 'Rules' }, editor.bearer)).body.article_id;
    const y = (await yap(human, { text: 'mine' }, a)).body.yap_id;
    const own = await http.post(`/api/v1/news/${a}/yaps/${y}/vote`, { weight: 1 }, human.bearer);
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe('cannot_vote_own_yap');
    const wrong = await http.post(`/api/v1/news/${articleId}/yaps/${y}/vote`, { weight: 1 }, cyborg.bearer);
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe('yap_not_found');
    expect((await http.post(`/api/v1/news/${a}/yaps/999999/vote`, { weight: 1 }, cyborg.bearer)).status).toBe(404);
    expect((await http.post(`/api/v1/news/${a}/yaps/${y}/vote`, { weight: 5 }, cyborg.bearer)).status).toBe(400);
    expect((await http.post(`/api/v1/news/${a}/yaps/${y}/vote`, { weight: 1 })).status).toBe(401);
  });
});
