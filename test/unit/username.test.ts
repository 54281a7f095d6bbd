import { describe, expect, it } from 'vitest';
import { looksLikeAddress, usernameProblem } from '../../src/identity/rules/username.js';

describe('username rules', () => {
  it('accepts 3-30 letters, digits and _ starting with a letter', () => {
    for (const ok of ['abc', 'Alice_99', 'a'.repeat(30), 'x_y_z']) expect(usernameProblem(ok)).toBeNull();
  });
  it('rejects other shapes', () => {
    for (const bad of ['ab', 'a'.repeat(31), '9lives', '_under', 'has space', 'dash-ed', 'émile', '0xabc', '']) {
      expect(usernameProblem(bad)).toBe('username_invalid');
    }
  });
  it('reserves a few names in any case', () => {
    expect(usernameProblem('Admin')).toBe('username_reserved');
    expect(usernameProblem('STAFF')).toBe('username_reserved');
  });
  it('a username can never look like an address', () => {
    expect(looksLikeAddress('0x' + 'ab'.repeat(20))).toBe(true);
    expect(looksLikeAddress('alice')).toBe(false);
  });
});
