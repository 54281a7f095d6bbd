/**
 * asset-token-lists-refresh: add the assets and contract deployments of the operator's Token Lists
 * (config ASSET_TOKEN_LISTS_URLS) to the registry (src/assets/token-lists-service.ts). Scheduled
 * daily; with no URL configured it does nothing. A list that fails or does not validate changes
 * nothing and fails the run (permanently when no retry can fix it), naming the list.
 */
import { z } from 'zod';
import { refreshTokenLists, sharedRegistry } from '../src/assets/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({});

export const job = defineJob({
  name: 'asset-token-lists-refresh',
  payload,
  options: { ...defaultJobOptions, attempts: 3, backoffMs: 60_000, concurrency: 1 },
  async run(_p, deps) {
    const urls = deps.config.ASSET_TOKEN_LISTS_URLS;
    return refreshTokenLists(deps.db, sharedRegistry, urls, { allowPrivate: deps.config.OUTBOUND_ALLOW_PRIVATE });
  },
});
