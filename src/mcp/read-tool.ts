/**
 * The way a read tool is registered: annotated read-only and closed-world (it changes nothing and
 * reaches nothing outside the service), its failures answered as the REST error body (env.run).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ToolCall } from './tool-call.js';
import type { ToolEnv } from './tool-env.js';

interface ReadToolInfo {
  title: string;
  description: string;
  /** The REST route's own schema (src/mcp/schemas.ts): the tool's arguments are its parsed output. */
  inputSchema: z.ZodObject;
}

type RegisterReadTool = (name: string, info: ReadToolInfo, handler: (args: Record<string, unknown>) => Promise<CallToolResult>) => void;

/** Registers read tools on `server`, each run through env.run for this call. */
export function readToolRegistrar(server: McpServer, env: ToolEnv, call: ToolCall): RegisterReadTool {
  return (name, info, handler) => {
    server.registerTool(name, { ...info, annotations: { readOnlyHint: true, openWorldHint: false } }, (args) => env.run(call, () => handler(args)));
  };
}
