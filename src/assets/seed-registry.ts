/**
 * The seed registry from its maintained package data: cryptocurrency-icons' manifest (CC0-1.0:
 * symbols and names) and @metamask/contract-metadata's contract map (ISC: Ethereum mainnet ERC-20
 * contracts), over the curated list. The migration seeds the database from a frozen JSON copy
 * (`npm run assets:seed-data` writes it); the bench and tests build it here from the packages.
 */
import { createRequire } from 'node:module';
import { CURATED_ASSETS } from './curated-assets.js';
import { buildSeedRegistry, type AssetRecord, type ContractMapEntry, type ManifestEntry } from './rules/registry.js';

const require = createRequire(import.meta.url);

export function loadSeedRegistry(): AssetRecord[] {
  const manifest = require('cryptocurrency-icons/manifest.json') as ManifestEntry[];
  const contractMap = require('@metamask/contract-metadata/contract-map.json') as Record<string, ContractMapEntry>;
  return buildSeedRegistry(CURATED_ASSETS, manifest, contractMap);
}
