/**
 * Request free text goes through the one string schema (src/platform/http/schemas.ts `text()`):
 * no request field of any route accepts a NUL byte or an unpaired surrogate (PostgreSQL text cannot
 * hold them), and text shown to other people refuses bidirectional controls and C0 controls.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { loadConfig } from '../../src/platform/config.js';
import { allRoutes } from '../../src/routes.js';
import type { RouteDef } from '../../src/platform/http/route.js';

const config = loadConfig({
  NODE_ENV: 'test',
  DATABASE_URL: 'postgres://doc@127.0.0.1:1/doc',
  REDIS_URL: 'redis://127.0.0.1:1',
  JWT_SECRET: 'document-builder-secret-document-builder-secret',
});
const routes: RouteDef[] = allRoutes({ config, db: {} } as never);

type Any = z.ZodType & { def: { type: string; innerType?: Any; in?: Any; shape?: Record<string, Any>; element?: Any } };

/** The fields of an object schema (through optional, nullable, default and pipe wrappers), or null. */
function fieldsOf(schema: Any | undefined): Record<string, Any> | null {
  let s = schema;
  while (s) {
    const d = s.def;
    if (d.type === 'object') return d.shape!;
    s = d.innerType ?? d.in;
  }
  return null;
}

/** Every leaf field of a request part, with its dotted path (nested objects walked). */
function leaves(schema: Any | undefined, prefix: string): [string, Any][] {
  const shape = fieldsOf(schema);
  if (!shape) return [];
  return Object.entries(shape).flatMap(([k, v]) => {
    const nested = leaves(v, `${prefix}.${k}`);
    return nested.length ? nested : [[`${prefix}.${k}`, v] as [string, Any]];
  });
}

/**
 * The free text clients send: query and body fields. Path parameters are identifiers with their own
 * patterns (a NUL in one that reaches PostgreSQL answers 400 invalid_value). Telegram's update
 * webhook takes Telegram's text as Telegram sends it, NUL bytes removed (src/agent-chat/telegram-updates.ts).
 */
function requestFields(): [string, Any][] {
  return routes
    .filter((r) => r.path !== '/telegram/webhook')
    .flatMap((r) => (['query', 'body'] as const).flatMap((part) => leaves(r[part] as Any, `${r.method.toUpperCase()} ${r.path} ${part}`)));
}

const issueCodes = (schema: Any, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success ? null : r.error.issues.map((i) => (i.code === 'custom' && typeof i.params?.code === 'string' ? i.params.code : i.code));
};

describe('request free text', () => {
  it('no request field of any route accepts a NUL byte or an unpaired surrogate', () => {
    const fields = requestFields();
    expect(fields.length).toBeGreaterThan(100);
    const accepting = fields.filter(([, schema]) => ['a\u0000b', ['a\u0000b'], 'a\ud800b', ['a\udc00b']].some((v) => issueCodes(schema, v) === null)).map(([path]) => path);
    expect(accepting).toEqual([]);
  });

  it('headlines, yaps and profile text refuse bidirectional controls and C0 controls with forbidden_character', () => {
    const wanted = [
      'POST /news/post body.headline',
      'POST /news/:id/post_yap body.text',
      'PATCH /news/:id/ body.headline',
      'PUT /wallet/profile/ body.bio',
      'PUT /wallet/profile/ body.display_name',
      'PUT /wallet/profile/ body.location',
      'POST /sponsored/ body.headline',
      'POST /wire/items/:id/promote body.headline',
    ];
    const fields = new Map(requestFields());
    for (const path of wanted) {
      const schema = fields.get(path);
      expect(schema, path).toBeDefined();
      for (const bad of ['a\u202eb', 'a\u2066b', 'a\u0007b', 'a\u001bb']) expect(issueCodes(schema!, bad), `${path} ${JSON.stringify(bad)}`).toContain('forbidden_character');
      expect(issueCodes(schema!, 'two\nlines\tand a tab'), path).toBeNull();
    }
  });
});
