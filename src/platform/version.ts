/**
 * The service's two version numbers (docs/api-decisions.md: Versions).
 *
 * - SERVICE_VERSION: the version of this service's interface description. It is package.json's
 *   `version` (a unit test holds them equal), the OpenAPI document's `info.version` and the MCP
 *   server's `serverInfo.version` (the MCP tools are built from the same route definitions as the
 *   document). It changes whenever the document does, including additive changes.
 * - API_VERSION: the version of the contract (the spec's "API version"), answered as
 *   `x-api-version` and `api_version` on `GET /`. Its major is the path segment `/api/v1`.
 */
export const SERVICE_VERSION = '1.4.0';
export const API_VERSION = '1.2';
