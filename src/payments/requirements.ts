/**
 * What we ask for (x402 v2 PaymentRequirements / PaymentRequired) and what the mainnet fallback
 * accepts. Built from configuration; the token's EIP-712 domain (name, version) comes from
 * @x402/evm's default-asset table when X402_ASSET is the network's USDC.
 */
import { PAYMENT_REQUIRED_CACHE_CONTROL, encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { findDefaultAsset, getDefaultAsset } from '@x402/evm';
import { getAddress, type Address } from 'viem';
import type { Config } from '../platform/config.js';
import { compactBazaar, type BazaarExtension } from './discovery.js';

export const X402_VERSION = 2;
export const SCHEME = 'exact';

/** Stablecoins accepted by the mainnet fallback (Ethereum mainnet, 6 decimals each). */
export const MAINNET_STABLECOINS: Record<string, { symbol: string; decimals: number }> = {
  '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48': { symbol: 'USDC', decimals: 6 },
  '0xdac17f958d2ee523a2206206994597c13d831ec7': { symbol: 'USDT', decimals: 6 },
};
export const MAINNET_CHAIN_ID = 1;

type PaymentPurpose = 'intel_report' | 'sponsored_post';

/** One thing that can be bought: the report (per call) or a sponsored post. */
export interface Offer {
  purpose: PaymentPurpose;
  /** Price in the asset's atomic units (both the x402 asset and the mainnet stablecoins have 6 decimals). */
  amountAtomic: bigint;
  /** Path under the public base URL, e.g. /api/v1/intel/report/ (the x402 `resource.url`). */
  path: string;
  description: string;
  /** HTTP method of the paid route (discovery). */
  method?: 'GET' | 'POST';
  /** x402 `bazaar` discovery extension: carried in PaymentRequired.extensions and GET /.well-known/x402. */
  bazaar?: BazaarExtension;
  /** Overrides `path`: the x402 resource URL (e.g. the MCP endpoint for a paid tool). */
  resourceUrl?: string;
}

export interface AssetInfo {
  address: Address;
  name: string;
  version: string;
  decimals: number;
  symbol: string;
}

export class PaymentConfigError extends Error {}

/** The x402 asset from configuration; throws PaymentConfigError when the EIP-712 domain is unknown. */
export function resolveAsset(config: Pick<Config, 'X402_NETWORK' | 'X402_ASSET' | 'X402_ASSET_NAME' | 'X402_ASSET_VERSION'>): AssetInfo {
  const network = config.X402_NETWORK as `${string}:${string}`;
  let known: { asset: string; name: string; version: string; decimals: number; symbol?: string } | undefined;
  try {
    known = config.X402_ASSET ? findDefaultAsset(config.X402_ASSET, network) : getDefaultAsset(network, 'USDC');
  } catch {
    known = undefined;
  }
  const address = config.X402_ASSET ?? known?.asset;
  const name = config.X402_ASSET_NAME ?? known?.name;
  const version = config.X402_ASSET_VERSION ?? known?.version;
  if (!address || !name || !version) {
    throw new PaymentConfigError(`X402_ASSET on ${network}: set X402_ASSET, X402_ASSET_NAME and X402_ASSET_VERSION (no default USDC is known for this network)`);
  }
  return { address: getAddress(address), name, version, decimals: known?.decimals ?? 6, symbol: known?.symbol ?? 'USDC' };
}

/** Chain id of a CAIP-2 `eip155:<id>` network. */
export function chainIdOf(network: string): number {
  return Number(network.split(':')[1]);
}

export function paymentRequirements(config: Config, asset: AssetInfo, payTo: Address, offer: Offer): PaymentRequirements {
  return {
    scheme: SCHEME,
    network: config.X402_NETWORK as `${string}:${string}`,
    asset: asset.address,
    amount: offer.amountAtomic.toString(),
    payTo,
    maxTimeoutSeconds: config.X402_MAX_TIMEOUT_S,
    // EIP-712 domain of the token, which the client signs TransferWithAuthorization under.
    extra: { name: asset.name, version: asset.version },
  };
}

export function paymentRequired(config: Config, requirements: PaymentRequirements, offer: Offer, error?: string): PaymentRequired {
  return {
    x402Version: X402_VERSION,
    ...(error ? { error } : {}),
    resource: {
      url: offer.resourceUrl ?? new URL(offer.path, config.PUBLIC_BASE_URL).toString(),
      description: offer.description,
      mimeType: 'application/json',
    },
    accepts: [requirements],
    ...(offer.bazaar ? { extensions: { bazaar: offer.bazaar } } : {}),
  };
}

/** Headers of every 402 (x402 v2 HTTP transport): PAYMENT-REQUIRED (base64 JSON) and no shared caching. */
export function paymentRequiredHeaders(pr: PaymentRequired): Record<string, string> {
  // The header carries the bazaar extension without the output's JSON Schema (the report's is ~12 KB,
  // which would push the header past common 16 KB limits); the body's error.details and
  // GET /.well-known/x402 carry it whole.
  const bazaar = pr.extensions?.bazaar as BazaarExtension | undefined;
  const headerPr = bazaar ? { ...pr, extensions: { ...pr.extensions, bazaar: compactBazaar(bazaar) } } : pr;
  return { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(headerPr), 'Cache-Control': PAYMENT_REQUIRED_CACHE_CONTROL };
}

/** Decimal string of an atomic amount with 6 decimals, e.g. 250000n -> "0.25". */
export function formatUnits6(amount: bigint): string {
  const whole = amount / 1_000_000n;
  const frac = (amount % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
}
