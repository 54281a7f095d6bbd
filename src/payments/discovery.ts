/**
 * x402 discovery: the `bazaar` extension (specs/extensions/bazaar.md of coinbase/x402) that the
 * 402 answer of every paid resource carries in PaymentRequired.extensions, and the resource list
 * of GET /.well-known/x402, shaped like a facilitator's discovery list (x402 v2 specification §8,
 * GET /discovery/resources: {x402Version, items: [{resource, type, x402Version, accepts,
 * lastUpdated, metadata}], pagination}). The input and output JSON Schemas are generated from the
 * same zod schemas the routes validate with, so they cannot drift.
 */
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

export interface BazaarExtension {
  info: { input: Record<string, unknown>; output?: { type: string; example?: unknown } };
  schema: JsonSchema;
}

const SCHEMA_2020 = 'https://json-schema.org/draft/2020-12/schema';

/** Replace every local `#/$defs/X` reference with the definition itself (the schemas have no cycles). */
function inlineDefs(node: unknown, defs: Record<string, unknown>, depth = 0): unknown {
  if (depth > 64) return {};
  if (Array.isArray(node)) return node.map((n) => inlineDefs(n, defs, depth + 1));
  if (!node || typeof node !== 'object') return node;
  const o = node as Record<string, unknown>;
  if (typeof o.$ref === 'string' && o.$ref.startsWith('#/$defs/')) {
    const { $ref, ...rest } = o;
    const def = defs[decodeURIComponent(($ref as string).slice('#/$defs/'.length))];
    return { ...(inlineDefs(def, defs, depth + 1) as object), ...(inlineDefs(rest, defs, depth + 1) as object) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (k !== '$defs' && k !== '$schema') out[k] = inlineDefs(v, defs, depth + 1);
  return out;
}

/** A self-contained JSON Schema (2020-12) of a zod schema: `input` for what a caller sends, `output` for what it gets. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const raw = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;
  return inlineDefs(raw, (raw.$defs as Record<string, unknown>) ?? {}) as JsonSchema;
}

const outputSchemaPart = (output: JsonSchema) => ({
  type: 'object',
  properties: { type: { type: 'string' }, example: output },
  required: ['type'],
});

/** An extension's JSON Schema: an input object of exactly these properties (`required` present) and the output. */
function extensionSchema(input: Record<string, unknown>, required: string[], output: JsonSchema) {
  return {
    $schema: SCHEMA_2020,
    type: 'object',
    properties: {
      input: { type: 'object', properties: input, required, additionalProperties: false },
      output: outputSchemaPart(output),
    },
    required: ['input'],
  };
}

/** The bazaar extension of an HTTP endpoint (query method GET, or body method POST with a JSON body). */
export function bazaarHttp(o: {
  method: 'GET' | 'POST';
  query?: z.ZodType;
  body?: z.ZodType;
  output: z.ZodType;
  exampleQuery?: Record<string, string>;
  exampleBody?: Record<string, unknown>;
  headers?: Record<string, string>;
}): BazaarExtension {
  const output = jsonSchemaOf(o.output, 'output');
  const headersSchema = { type: 'object', additionalProperties: { type: 'string' } };
  if (o.method === 'GET') {
    return {
      info: {
        input: { type: 'http', method: 'GET', ...(o.exampleQuery ? { queryParams: o.exampleQuery } : {}), ...(o.headers ? { headers: o.headers } : {}) },
        output: { type: 'json' },
      },
      schema: extensionSchema(
        {
          type: { type: 'string', const: 'http' },
          method: { type: 'string', enum: ['GET', 'HEAD', 'DELETE'] },
          ...(o.query ? { queryParams: jsonSchemaOf(o.query, 'input') } : {}),
          headers: headersSchema,
        },
        ['type', 'method'],
        output,
      ),
    };
  }
  return {
    info: {
      input: { type: 'http', method: 'POST', bodyType: 'json', body: o.exampleBody ?? {}, ...(o.headers ? { headers: o.headers } : {}) },
      output: { type: 'json' },
    },
    schema: extensionSchema(
      {
        type: { type: 'string', const: 'http' },
        method: { type: 'string', enum: ['POST', 'PUT', 'PATCH'] },
        bodyType: { type: 'string', enum: ['json', 'form-data', 'text'] },
        body: o.body ? jsonSchemaOf(o.body, 'input') : { type: 'object' },
        queryParams: { type: 'object', additionalProperties: { type: 'string' } },
        headers: headersSchema,
      },
      ['type', 'method', 'bodyType', 'body'],
      output,
    ),
  };
}

/** The bazaar extension of an MCP tool (input.type "mcp"; the tool's own inputSchema). */
export function bazaarMcp(o: { tool: string; description: string; inputSchema: JsonSchema; output: z.ZodType; example?: Record<string, unknown> }): BazaarExtension {
  return {
    info: {
      input: { type: 'mcp', tool: o.tool, description: o.description, transport: 'streamable-http', inputSchema: o.inputSchema, ...(o.example ? { example: o.example } : {}) },
      output: { type: 'json' },
    },
    schema: extensionSchema(
      {
        type: { type: 'string', const: 'mcp' },
        tool: { type: 'string' },
        description: { type: 'string' },
        transport: { type: 'string', enum: ['streamable-http', 'sse'] },
        inputSchema: { type: 'object' },
        example: { type: 'object' },
      },
      ['type', 'tool', 'inputSchema'],
      jsonSchemaOf(o.output, 'output'),
    ),
  };
}

/** The extension with the output's JSON Schema left out (for the PAYMENT-REQUIRED header). */
export function compactBazaar(b: BazaarExtension): BazaarExtension {
  const props = (b.schema.properties ?? {}) as Record<string, unknown>;
  return { info: b.info, schema: { ...b.schema, properties: { ...props, output: { type: 'object', properties: { type: { type: 'string' }, example: {} }, required: ['type'] } } } };
}
