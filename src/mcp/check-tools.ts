/** The provenance check (waiting for a pending check as a client polling it would) and trending tags. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { checkAnswer, pollCheck, startCheck } from '../provenance/index.js';
import type { TrendingParams } from '../intel/index.js';
import type { ToolSchemas } from './schemas.js';
import { jsonResult, type ToolCall } from './tool-call.js';
import type { ToolEnv } from './tool-env.js';
import { readToolRegistrar } from './read-tool.js';

/** How long provenance_check waits for a pending check, polling it as GET /provenance/check/{job_id} would. */
const CHECK_WAIT_MS = 10_000;
const POLL_EVERY_MS = 500;

export function registerCheckTools(server: McpServer, env: ToolEnv, call: ToolCall, s: ToolSchemas): void {
  const readTool = readToolRegistrar(server, env, call);
  const { deps } = env;
  readTool(
    'provenance_check',
    {
      title: 'Is this story new?',
      description: `Provenance check of a URL and/or headline text (POST /api/v1/provenance/check; 30 per minute per IP): verdict new, known, duplicate or stale with the matches. Waits up to ${CHECK_WAIT_MS / 1000} s for a pending check, then returns the poll state.`,
      inputSchema: s.checkBody,
    },
    async (args) => {
      await call.admit('provenanceCheck');
      let answer = checkAnswer(await startCheck(deps, args as { url?: string; text?: string }));
      const until = Date.now() + CHECK_WAIT_MS;
      while (answer.pending && Date.now() < until) {
        await new Promise((res) => setTimeout(res, POLL_EVERY_MS));
        // Each poll counts as the REST poll request (GET /provenance/check/{job_id}) would.
        await call.admit('provenanceCheckResult');
        answer = checkAnswer(await pollCheck(deps, answer.body.job_id));
      }
      return jsonResult(answer.body);
    },
  );

  readTool(
    'intel_trending',
    {
      title: 'Trending tags',
      description: 'Trending tags with counts and velocity, and the platform pulse (GET /api/v1/intel/trending/; 30 per minute per IP).',
      inputSchema: s.trendingQuery,
    },
    async (args) => {
      await call.admit('getIntelTrending');
      const { hours, top_n } = args as unknown as TrendingParams;
      return jsonResult((await env.intel.trending({ hours, top_n })).json);
    },
  );
}
