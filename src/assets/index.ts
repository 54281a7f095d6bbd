/** The assets feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { sharedRegistry } from './registry-cache.js';
export { addAmbiguousWord, addAsset, headlineTagging, requireKnownAssets, tagArticle, tagWireItem, updateAsset } from './service.js';
export { assetTagDedupeId, tagTargets } from './rules/triggers.js';
export { tagText } from './rules/tagger.js';
export { refreshTokenLists } from './token-lists-service.js';
export { articleTagsForEditors, unknownAssetIds } from './queries.js';
export { ASSET_ID_PATTERN } from './rules/registry.js';
export { refreshMindshare } from './mindshare-service.js';
export { readMindshareLeaders, type MindshareLeaders } from './mindshare-cache.js';
export { mindshareLeadersSchema } from './mindshare-schemas.js';
export { assetPage, assetSearch } from './read-service.js';
