/** submit_article: the one tool that writes, for an authenticated caller. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { submissionBody, submitArticle } from '../articles/index.js';
import type { ToolSchemas } from './schemas.js';
import { jsonResult, type ToolCall } from './tool-call.js';
import type { ToolEnv } from './tool-env.js';

export function registerSubmitTool(server: McpServer, env: ToolEnv, call: ToolCall, s: ToolSchemas): void {
  server.registerTool(
    'submit_article',
    {
      title: 'Submit an article',
      description:
        'Submit an article URL (optionally with a headline) to the curation queue (POST /api/v1/news/post). Needs an authenticated caller: Authorization: Bearer <API key linked to an account, or access token> on the MCP HTTP request.',
      inputSchema: s.submitBody,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args) =>
      env.run(call, async () => {
        const caller = await call.admit('submitArticle');
        const { url, headline } = args as { url: string; headline?: string };
        return jsonResult(submissionBody(await submitArticle(env.deps, { url, headline, userId: caller.user!.id })));
      }),
  );
}
