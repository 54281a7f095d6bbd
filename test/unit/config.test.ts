import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.js';

const base = {
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
  REDIS_URL: 'redis://127.0.0.1:6379',
  JWT_SECRET: 'x'.repeat(40),
};

describe('loadConfig', () => {
  it('applies documented defaults', () => {
    const c = loadConfig(base);
    expect(c.PORT).toBe(8000);
    expect(c.WS_PORT).toBe(8001);
    expect(c.TRUSTED_ORIGIN).toBe('http://127.0.0.1:8000');
    expect(c.OUTBOUND_ALLOW_PRIVATE).toBe(false);
    expect(c.TRUST_PROXY).toBe(false);
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig({ ...base, DATABASE_URL: undefined, PORT: 'eighty', TRUSTED_ORIGIN: 'http://x.com/path', OUTBOUND_ALLOW_PRIVATE: 'maybe' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const keys = (err as ConfigError).problems.map((p) => p.split(':')[0]).sort();
      expect(keys).toEqual(['DATABASE_URL', 'OUTBOUND_ALLOW_PRIVATE', 'PORT', 'TRUSTED_ORIGIN']);
      expect((err as ConfigError).problems.find((p) => p.startsWith('DATABASE_URL'))).toContain('required');
    }
  });

  it('requires JWT_SECRET in production', () => {
    expect(() => loadConfig({ ...base, JWT_SECRET: undefined, NODE_ENV: 'production' })).toThrow(/JWT_SECRET: is required in production/);
  });

  it('parses booleans', () => {
    expect(loadConfig({ ...base, OUTBOUND_ALLOW_PRIVATE: 'true', TRUST_PROXY: '1' })).toMatchObject({ OUTBOUND_ALLOW_PRIVATE: true, TRUST_PROXY: true });
  });
});
