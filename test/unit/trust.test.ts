import { describe, expect, it } from 'vitest';
import {
  afterAgeing,
  afterHandshake,
  afterViolations,
  handshakeBlocker,
  INITIAL_TRUST_LEVEL,
  postingLimit,
  telegramPermissions,
  TRUST_LEVELS,
} from '../../src/agent-chat/rules/trust.js';

describe('trust transitions', () => {
  it('starts at read_only; the handshake moves read_only (only) to full_write', () => {
    expect(INITIAL_TRUST_LEVEL).toBe('read_only');
    expect(afterHandshake('read_only')).toMatchObject({ from: 'read_only', to: 'full_write', cause: 'handshake' });
    for (const l of ['full_write', 'sandbox_write', 'muted'] as const) expect(afterHandshake(l)).toBeNull();
    expect(handshakeBlocker('full_write')?.code).toBe('handshake_already_passed');
    expect(handshakeBlocker('sandbox_write')?.code).toBe('handshake_not_allowed');
    expect(handshakeBlocker('muted')?.code).toBe('handshake_not_allowed');
  });

  it('full_write drops to sandbox_write at 3 violations, not before', () => {
    expect(afterViolations('full_write', 2)).toBeNull();
    expect(afterViolations('full_write', 3)).toMatchObject({ to: 'sandbox_write', cause: 'violations' });
    expect(afterViolations('full_write', 5)?.to).toBe('sandbox_write');
    // Only full_write is demoted to the sandbox.
    expect(afterViolations('read_only', 4)).toBeNull();
    expect(afterViolations('sandbox_write', 5)).toBeNull();
  });

  it('any level is muted at 6, and muted stays muted', () => {
    for (const l of ['read_only', 'full_write', 'sandbox_write'] as const) expect(afterViolations(l, 6)?.to).toBe('muted');
    expect(afterViolations('muted', 9)).toBeNull();
  });

  it('sandbox_write returns to full_write when violations age out below 3; muted does not', () => {
    expect(afterAgeing('sandbox_write', 2)).toMatchObject({ to: 'full_write', cause: 'ageing' });
    expect(afterAgeing('sandbox_write', 3)).toBeNull();
    expect(afterAgeing('muted', 0)).toBeNull();
  });

  it('room permissions follow the level', () => {
    expect(Object.values(telegramPermissions('full_write')).filter(Boolean).length).toBeGreaterThan(5);
    expect(telegramPermissions('sandbox_write')).toMatchObject({ can_send_messages: true, can_send_photos: false });
    for (const l of ['read_only', 'muted'] as const) expect(Object.values(telegramPermissions(l)).some(Boolean)).toBe(false);
    expect(TRUST_LEVELS.map(postingLimit)).toEqual([null, 12, 3, null]);
  });
});
