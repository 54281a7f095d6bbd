import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../support/cli.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
let server: http.Server;
let feedUrl: string;

beforeAll(async () => {
  deps = await createTestDeps();
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/rss+xml' });
    res.end('<rss><channel><item><title>CLI story</title><link>https://cli.example/story</link></item></channel></rss>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.xml`;
});
afterAll(async () => {
  await deps.close();
  await new Promise<void>((r) => server.close(() => r()));
});

const cli = (...argv: string[]) => runCliCaptured(deps.env.env, argv);

describe('admin CLI: wire', () => {
  it('add, list, disable/enable, remove', async () => {
    const add = await cli('wire', 'add', 'CLI Wire', feedUrl, '--weight=2.5', '--every=120');
    expect(add.code).toBe(0);
    expect(add.out).toMatch(/added wire source \d+ "CLI Wire"/);
    const list = await cli('wire', 'list');
    expect(list.out).toContain('CLI Wire');
    expect(list.out).toContain('2.5');
    expect(list.out).toContain('120s');
    expect((await cli('wire', 'disable', 'cli wire')).code).toBe(0);
    expect((await deps.db.selectFrom('wire_sources').select('enabled').executeTakeFirstOrThrow()).enabled).toBe(false);
    expect((await cli('wire', 'enable', 'CLI Wire')).code).toBe(0);
    const dup = await cli('wire', 'add', 'cli wire', 'https://other.example/feed');
    expect(dup.code).toBe(1);
    expect(dup.err).toMatch(/exists already/);
  });

  it('fetch --inline ingests the feed in the CLI process', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, deps.env.env);
    try {
      const r = await cli('wire', 'fetch', 'CLI Wire', '--inline');
      expect(r.err).toBe('');
      expect(r.out).toMatch(/fetched "CLI Wire": HTTP 200, rss, 1 items, 1 new, 1 receipts/);
    } finally {
      process.env = saved;
    }
    const item = await deps.db.selectFrom('wire_items').select(['normalized_url', 'source_name']).executeTakeFirstOrThrow();
    expect(item).toEqual({ normalized_url: 'https://cli.example/story', source_name: 'CLI Wire' });
  });

  it('remove keeps the items', async () => {
    const r = await cli('wire', 'remove', 'CLI Wire');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/removed wire source \d+ "CLI Wire" \(1 items/);
    expect((await cli('wire', 'list')).out).toMatch(/no wire sources/);
    expect(await deps.db.selectFrom('wire_items').select('source_id').executeTakeFirstOrThrow()).toEqual({ source_id: null });
  });

  it.each([
    [['wire', 'add', 'x'], 2, /expected <name> <feed-url>/],
    [['wire', 'add', 'x', 'ftp://a/feed'], 2, /http/],
    [['wire', 'add', 'x', 'not a url'], 2, /not a URL/],
    [['wire', 'add', 'x', 'https://a.example/f', '--weight=11'], 2, /--weight/],
    [['wire', 'add', 'x', 'https://a.example/f', '--every=5'], 2, /--every/],
    [['wire', 'add', 'x', 'https://a.example/f', '--color=red'], 2, /unknown option/],
    [['wire', 'add', '123', 'https://a.example/f'], 2, /not only digits/],
    [['wire', 'remove', 'nope'], 1, /no wire source "nope"/],
    [['wire', 'fetch', 'nope'], 1, /no wire source/],
    [['wire', 'frobnicate'], 2, /unknown command/],
  ])('%j -> exit %i', async (argv, code, message) => {
    const r = await cli(...(argv as string[]));
    expect(r.code).toBe(code);
    expect(r.err).toMatch(message);
  });

  it('help lists the wire commands', async () => {
    const r = await cli('help', 'wire');
    expect(r.out).toContain('wire add <name> <feed-url>');
    expect(r.out).toContain('wire fetch <id|name> [--inline]');
  });
});
