import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedRegistry } from '../../src/assets/index.js';
import { refreshTokenLists } from '../../src/assets/token-lists-service.js';
import { startWorkers } from '../../src/bin/worker-runtime.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

const sample = readFileSync(new URL('../data/assets/token-list-sample.json', import.meta.url), 'utf8');
const invalid = JSON.stringify({ ...JSON.parse(sample), tokens: [{ chainId: 1, name: 'No address', symbol: 'NOPE', decimals: 18 }] });

let server: http.Server;
let base: string;
let deps: TestDeps;
let workers: Worker[];

/** A Token Lists host on 127.0.0.1: the sample list, an invalid one, non-JSON, an oversized body, a slow answer, a 500. */
async function startListServer(): Promise<void> {
  server = http.createServer((req, res) => {
    const json = (body: string) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (req.url === '/sample.json') return json(sample);
    if (req.url === '/invalid.json') return json(invalid);
    if (req.url === '/not-json') return json('<html>not a list</html>');
    if (req.url === '/big.json') return json(`${sample.slice(0, -2)}${' '.repeat(64 * 1024)}}`);
    if (req.url === '/slow.json') return void setTimeout(() => json(sample), 2000).unref();
    res.writeHead(500);
    res.end('oops');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  await startListServer();
  deps = await createTestDeps({ ASSET_TOKEN_LISTS_URLS: `${base}/sample.json, ${base}/invalid.json` });
  workers = startWorkers(
    { config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer },
    { redisUrl: deps.config.REDIS_URL, prefix: deps.config.QUEUE_PREFIX, lockDurationMs: 5000, concurrencyCap: 2, only: ['asset-token-lists-refresh'] },
  );
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await deps.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const snapshot = async () => ({
  assets: await deps.db.selectFrom('assets').select(['id', 'symbol', 'name', 'source']).orderBy('id').execute(),
  deployments: await deps.db.selectFrom('asset_deployments').selectAll().orderBy('caip19').execute(),
});
const refresh = (urls: string[], opts: { timeoutMs?: number; maxBytes?: number } = {}) => refreshTokenLists(deps.db, sharedRegistry, urls, { allowPrivate: true, ...opts });

describe('Token Lists refresh', () => {
  it.each([
    ['does not validate', '/invalid.json', {}, /invalid_token_list: tokens\.0\.address/, 'PermanentJobError'],
    ['is not JSON', '/not-json', {}, /invalid_json/, 'PermanentJobError'],
    ['is larger than the cap', '/big.json', { maxBytes: 32 * 1024 }, /too_large/, 'PermanentJobError'],
    ['times out', '/slow.json', { timeoutMs: 300 }, /timeout/, 'Error'],
    ['answers 500', '/broken', {}, /http_500/, 'Error'],
  ])('a list that %s leaves the registry as it was and fails the run naming it', async (_what, path, opts, reason, errorName) => {
    const before = await snapshot();
    const err = await refresh([`${base}${path}`], opts).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe(errorName);
    expect((err as Error).message).toContain(`${base}${path}`);
    expect((err as Error).message).toMatch(reason);
    expect(await snapshot()).toEqual(before);
  });

  it('the job applies the valid list as a diff and fails permanently naming the invalid one; staff assets stay', async () => {
    await deps.db.insertInto('assets').values({ id: 'eigen', symbol: 'EIGEN', name: 'Eigen staff entry', aliases: [], ambiguous: false, source: 'staff' }).execute();
    const before = await snapshot();
    const failed = await deps.queue.enqueueAndWait('asset-token-lists-refresh', {}, 15_000).catch((e: Error) => e);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toContain(`${base}/invalid.json: invalid_token_list`);
    expect((failed as Error).message).toContain(`applied: ${base}/sample.json (+1 assets, +7 deployments)`);
    const after = await snapshot();
    expect(after.assets.filter((a) => !before.assets.some((b) => b.id === a.id))).toEqual([{ id: 'pendle', symbol: 'PENDLE', name: 'Pendle', source: 'token-list' }]);
    expect(after.assets.find((a) => a.id === 'eigen')).toEqual({ id: 'eigen', symbol: 'EIGEN', name: 'Eigen staff entry', source: 'staff' });
    const added = after.deployments.filter((d) => !before.deployments.some((b) => b.caip19 === d.caip19));
    expect(added.map((d) => `${d.asset_id} ${d.caip19}`).sort()).toEqual([
      'chainlink eip155:42161/erc20:0xf97f4df75117a78c1a5a0dbb814af92458539fb4',
      'eigen eip155:1/erc20:0xec53bf9167f50cdeb3ae105f56099aaab9061f83',
      'ethena eip155:1/erc20:0x57e114b691db790c35207b2e685d4a43181e6061',
      'pendle eip155:1/erc20:0x808507121b80c02388fad14726482e061b8da827',
      'pendle eip155:42161/erc20:0x0c880f6761f1af8d9aa9c466984b80dab9a8c9e8',
      'usd-coin eip155:137/erc20:0x3c499c542cef5e3811e1192ce70d8cc03d5c3359',
      'usd-coin eip155:42161/erc20:0xaf88d065e77c8cc2239327c5edb3a432268e5831',
    ]);
    expect(await refresh([`${base}/sample.json`])).toEqual({ lists: [{ url: `${base}/sample.json`, name: 'Sample token list', tokens: 8, new_assets: 0, new_deployments: 0 }] });
    expect(await snapshot()).toEqual(after);
  });
});
