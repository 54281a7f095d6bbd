import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress, safeFetch, SafeFetchError } from '../../src/platform/safe-fetch.js';

let server: http.Server;
let base: string;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    switch (u.pathname) {
      case '/ok':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return res.end('hello');
      case '/latin1':
        res.writeHead(200, { 'content-type': 'text/xml' });
        return res.end(Buffer.concat([Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><t>caf'), Buffer.from([0xe9]), Buffer.from('</t>')]));
      case '/gzip':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return res.end(zlib.gzipSync(JSON.stringify({ a: 1 })));
      case '/redirect':
        res.writeHead(302, { location: u.searchParams.get('to')! });
        return res.end();
      case '/loop':
        res.writeHead(301, { location: '/loop' });
        return res.end();
      case '/big':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('x'.repeat(10_000));
        return res.end('x'.repeat(10_000));
      case '/big-declared':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(50_000) });
        return res.end('x'.repeat(50_000));
      case '/gzip-bomb':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        return res.end(zlib.gzipSync(Buffer.alloc(2_000_000, 0x61)));
      case '/image':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end('png');
      case '/hang':
        return; // never answers
      case '/conditional':
        if (req.headers['if-none-match'] === '"v1"') {
          res.writeHead(304, { etag: '"v1"' });
          return res.end();
        }
        res.writeHead(200, { etag: '"v1"', 'content-type': 'text/plain' });
        return res.end('fresh');
      default:
        res.writeHead(404);
        return res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function refused(url: string, opts: Parameters<typeof safeFetch>[1] = {}): Promise<SafeFetchError> {
  try {
    await safeFetch(url, { timeoutMs: 2000, ...opts });
  } catch (err) {
    expect(err).toBeInstanceOf(SafeFetchError);
    return err as SafeFetchError;
  }
  throw new Error(`expected ${url} to be refused`);
}

/** The test server is the only "public" host: everything else keeps the default policy. */
const serverIsPublic = (ip: string) => ip === '127.0.0.1' || !isPrivateAddress(ip);
const fakeDns = async (host: string) =>
  ({ 'news.example': ['127.0.0.1'], 'metadata.example': ['169.254.169.254'], 'intranet.example': ['10.0.0.7'], 'v6.example': ['::1'] })[host] ?? [];

describe('address policy', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::127.0.0.1',
    '::ffff:0:127.0.0.1',
    '::ffff:0:a9fe:a9fe',
    '::ffff:0:10.0.0.1',
    '64:ff9b:1::8.8.8.8',
    '100:0:0:1::1',
    '2001:2::1',
    '2001:20::1',
    '3fff::1',
    '5f00::1',
    '2002:7f00:1::',
    'ff02::1',
    'not-an-ip',
  ])('%s is private', (ip) => expect(isPrivateAddress(ip)).toBe(true));
  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '::ffff:0:8.8.8.8', '2001:4860:4860::8888'])(
    '%s is public',
    (ip) => expect(isPrivateAddress(ip)).toBe(false),
  );
});

describe('safeFetch refuses private destinations when OUTBOUND_ALLOW_PRIVATE is off', () => {
  it.each([
    ['loopback IPv4', () => `${base}/ok`],
    ['10.x', () => 'http://10.1.2.3/'],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['IPv6 loopback', () => `http://[::1]:${port}/ok`],
    ['decimal IPv4 spelling of 127.0.0.1', () => `http://2130706433:${port}/ok`],
    ['mapped IPv6 spelling of 127.0.0.1', () => `http://[::ffff:127.0.0.1]:${port}/ok`],
  ])('%s', async (_label, url) => {
    const err = await refused(url());
    expect(err.code).toBe('blocked_address');
  });

  it('a host name that resolves to a private address (after DNS)', async () => {
    expect((await refused(`http://news.example:${port}/ok`, { resolve: fakeDns })).code).toBe('blocked_address');
    expect((await refused('http://metadata.example/', { resolve: fakeDns })).code).toBe('blocked_address');
    expect((await refused(`http://localhost:${port}/ok`)).code).toBe('blocked_address');
  });

  it('the refusal names the setting that allows private addresses', async () => {
    expect((await refused(`http://localhost:${port}/ok`)).message).toContain('refused unless OUTBOUND_ALLOW_PRIVATE=true');
  });

  it('a public-looking URL that redirects to a private one, on every hop', async () => {
    const opts = { resolve: fakeDns, isAddressAllowed: serverIsPublic };
    // The first hop is allowed (control), the redirect target is not.
    expect((await safeFetch(`http://news.example:${port}/ok`, opts)).text()).toBe('hello');
    for (const to of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.7/', `http://[::1]:${port}/ok`, 'http://intranet.example/', 'http://metadata.example/']) {
      const err = await refused(`http://news.example:${port}/redirect?to=${encodeURIComponent(to)}`, opts);
      expect(err.code).toBe('blocked_address');
    }
  });

  it('refuses other schemes, credentials and redirects to other schemes', async () => {
    expect((await refused('file:///etc/passwd')).code).toBe('invalid_url');
    expect((await refused('ftp://example.com/')).code).toBe('invalid_url');
    expect((await refused('not a url')).code).toBe('invalid_url');
    expect((await refused(`${base}/ok`.replace('http://', 'http://u:p@'), { allowPrivate: true })).code).toBe('invalid_url');
    expect((await refused(`${base}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`, { allowPrivate: true })).code).toBe('bad_redirect');
  });
});

describe('safeFetch limits and decoding (private allowed, as in development)', () => {
  const allow = { allowPrivate: true };

  it('fetches, follows allowed redirects and reports them', async () => {
    const r = await safeFetch(`${base}/redirect?to=/ok`, allow);
    expect(r.status).toBe(200);
    expect(r.text()).toBe('hello');
    expect(r.url).toBe(`${base}/ok`);
    expect(r.redirects).toEqual([`${base}/redirect?to=/ok`]);
  });

  it('caps redirects', async () => {
    expect((await refused(`${base}/loop`, { ...allow, maxRedirects: 3 })).code).toBe('too_many_redirects');
  });

  it('times out on a server that never answers', async () => {
    const started = Date.now();
    expect((await refused(`${base}/hang`, { ...allow, timeoutMs: 300 })).code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('caps the body size, declared or streamed, compressed or not', async () => {
    expect((await refused(`${base}/big`, { ...allow, maxBytes: 5000 })).code).toBe('too_large');
    expect((await refused(`${base}/big-declared`, { ...allow, maxBytes: 5000 })).code).toBe('too_large');
    expect((await refused(`${base}/gzip-bomb`, { ...allow, maxBytes: 100_000 })).code).toBe('too_large');
  });

  it('checks the content type when asked', async () => {
    expect((await refused(`${base}/image`, { ...allow, accept: ['text/html'] })).code).toBe('bad_content_type');
    expect((await safeFetch(`${base}/ok`, { ...allow, accept: ['text/*'] })).status).toBe(200);
  });

  it('decompresses gzip and decodes declared charsets', async () => {
    expect(JSON.parse((await safeFetch(`${base}/gzip`, allow)).text())).toEqual({ a: 1 });
    expect((await safeFetch(`${base}/latin1`, allow)).text()).toContain('café');
  });

  it('returns a 304 of a conditional GET as a normal response', async () => {
    const first = await safeFetch(`${base}/conditional`, allow);
    expect(first.headers.etag).toBe('"v1"');
    const again = await safeFetch(`${base}/conditional`, { ...allow, headers: { 'if-none-match': first.headers.etag } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('reports DNS failures with a stable code', async () => {
    expect((await refused('http://nowhere.example/', { resolve: fakeDns })).code).toBe('dns_failed');
  });
});
