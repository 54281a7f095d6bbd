/**
 * The SSRF guard on page-title fetches: with OUTBOUND_ALLOW_PRIVATE off, private, loopback and
 * link-local targets are refused, also behind a DNS name and behind a redirect, and the submission
 * keeps its provisional headline with a headline_unavailable warning.
 */
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPageTitle } from '../../jobs/page-title.js';
import { isPrivateAddress } from '../../src/platform/safe-fetch.js';
import { startTestWorkers } from '../support/workers.js';
import { startPageServer, type PageServer } from '../support/news-page-server.js';
import { useTestApp } from '../support/app.js';

const app = useTestApp({ user: {} }, { OUTBOUND_ALLOW_PRIVATE: 'false', JOB_WAIT_MS: '3000' });
let workers: Worker[];
let loopback: PageServer;
let publicSite: PageServer;

// 127.0.0.2 stands in for a public web server: the policy below treats it, and only it, as public.
const PUBLIC_IP = '127.0.0.2';
const policy = (ip: string) => ip === PUBLIC_IP || !isPrivateAddress(ip);
const dns: Record<string, string[]> = {
  'news.public.test': [PUBLIC_IP],
  'loopback.evil.test': ['127.0.0.1'],
  'intranet.evil.test': ['10.1.2.3'],
  'metadata.evil.test': ['169.254.169.254'],
  'v6loop.evil.test': ['::1'],
  'mixed.evil.test': [PUBLIC_IP, '10.0.0.1'],
};
const resolve = async (host: string) => {
  const a = dns[host];
  if (!a) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return a;
};

beforeAll(async () => {
  loopback = await startPageServer('127.0.0.1');
  publicSite = await startPageServer(PUBLIC_IP);
  workers = startTestWorkers(app.deps, ['page-title'], { concurrencyCap: 4 });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await Promise.all([loopback.close(), publicSite.close()]);
});

describe('fetchPageTitle address policy', () => {
  it('fetches a public page (the happy path)', async () => {
    const r = await fetchPageTitle(`http://news.public.test:${publicSite.port}/article?title=Public+story`, { allowPrivate: false, resolve, isAddressAllowed: policy });
    expect(r).toEqual({ ok: true, title: 'Public story', description: null, publishedAt: null });
    const meta = await fetchPageTitle(`http://news.public.test:${publicSite.port}/article?title=Public+story&description=What+it+says&published=2025-07-29T03:42:12Z`, {
      allowPrivate: false,
      resolve,
      isAddressAllowed: policy,
    });
    expect(meta).toEqual({ ok: true, title: 'Public story', description: 'What it says', publishedAt: new Date('2025-07-29T03:42:12Z') });
  });

  it('refuses names that resolve to 127.0.0.1, 10.x, 169.254.169.254, ::1, or to any private address among public ones', async () => {
    for (const host of ['loopback.evil.test', 'intranet.evil.test', 'metadata.evil.test', 'v6loop.evil.test', 'mixed.evil.test']) {
      const r = await fetchPageTitle(`http://${host}:${loopback.port}/article`, { allowPrivate: false, resolve, isAddressAllowed: policy });
      expect(r, host).toEqual({ ok: false, reason: 'blocked_address' });
    }
    expect(loopback.hits.get('/article') ?? 0).toBe(0);
  });

  it('refuses a public page that redirects to a private address, on every hop', async () => {
    const before = loopback.hits.get('/article') ?? 0;
    for (const target of [
      `http://127.0.0.1:${loopback.port}/article`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${loopback.port}/article`,
      `http://loopback.evil.test:${loopback.port}/article`,
    ]) {
      const url = `http://news.public.test:${publicSite.port}/redirect?to=${encodeURIComponent(target)}`;
      const r = await fetchPageTitle(url, { allowPrivate: false, resolve, isAddressAllowed: policy });
      expect(r, target).toEqual({ ok: false, reason: 'blocked_address' });
    }
    expect(publicSite.hits.get('/redirect')).toBe(5);
    expect(loopback.hits.get('/article') ?? 0).toBe(before);
  });

  it('follows redirects between public hosts', async () => {
    const url = `http://news.public.test:${publicSite.port}/redirect?to=${encodeURIComponent(`http://news.public.test:${publicSite.port}/plain-title`)}`;
    expect(await fetchPageTitle(url, { allowPrivate: false, resolve, isAddressAllowed: policy })).toEqual({
      ok: true,
      title: 'Only the <title> & nothing else',
      description: null,
      publishedAt: null,
    });
  });

  it('retries (throws) on server errors and timeouts, gives up at once on 4xx', async () => {
    await expect(fetchPageTitle(`http://news.public.test:${publicSite.port}/broken`, { allowPrivate: false, resolve, isAddressAllowed: policy })).rejects.toThrow(/500/);
    await expect(
      fetchPageTitle(`http://news.public.test:${publicSite.port}/slow?ms=1000`, { allowPrivate: false, resolve, isAddressAllowed: policy, timeoutMs: 200 }),
    ).rejects.toMatchObject({ code: 'timeout' });
    expect(await fetchPageTitle(`http://news.public.test:${publicSite.port}/missing`, { allowPrivate: false, resolve, isAddressAllowed: policy })).toEqual({
      ok: false,
      reason: 'http_404',
    });
  });
});

describe('submission with OUTBOUND_ALLOW_PRIVATE off', () => {
  it('keeps the provisional headline and warns headline_unavailable for 127.0.0.1, 10.x, 169.254.169.254 and ::1', async () => {
    const before = loopback.hits.get('/article') ?? 0;
    const urls = [
      `http://127.0.0.1:${loopback.port}/article?title=Secret`,
      'http://10.0.0.1/internal-page',
      'http://169.254.169.254/latest/meta-data/iam',
      `http://[::1]:${loopback.port}/article?title=Secret`,
    ];
    for (const url of urls) {
      const r = await app.http.post('/api/v1/news/post', { url }, app.user.bearer);
      expect(r.status, url).toBe(201);
      // headline_unavailable, not headline_pending: the job answered within JOB_WAIT_MS, so the fetch
      // was refused before connecting (a connection attempt would run into the 8 s page timeout).
      expect(r.body.headline_source).toBe('provisional');
      expect(r.body.headline).not.toContain('Secret');
      expect(r.body.warnings).toEqual([{ code: 'headline_unavailable', message: expect.stringContaining('blocked_address') }]);
      // Outside production the warning names the setting that lets a developer submit local pages.
      expect(r.body.warnings[0].message).toContain('unless OUTBOUND_ALLOW_PRIVATE=true');
    }
    expect(loopback.hits.get('/article') ?? 0).toBe(before);
  });
});
