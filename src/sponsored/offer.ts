/** The x402 offer of a sponsored post: price, path and the Bazaar discovery entry (used by the route and by discovery). */
import type { AppDeps } from '../platform/deps.js';
import { bazaarHttp, type BazaarExtension, type Offer } from '../payments/index.js';
import { adSchema, buyBody } from './schemas.js';

let sponsoredBazaar: BazaarExtension | undefined;

export function sponsoredOffer(deps: AppDeps): Offer {
  return {
    purpose: 'sponsored_post',
    amountAtomic: BigInt(deps.config.SPONSORED_PRICE_ATOMIC),
    path: '/api/v1/sponsored/',
    description: 'Squid News sponsored post, tier express: a link with headline and tags, published to the feed after editor review',
    method: 'POST',
    bazaar: (sponsoredBazaar ??= bazaarHttp({
      method: 'POST',
      body: buyBody,
      output: adSchema,
      exampleBody: { url: 'https://example.com/launch', headline: 'Example protocol launches v2', tags: ['defi'] },
    })),
  };
}
