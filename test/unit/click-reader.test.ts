import { describe, expect, it } from 'vitest';
import { countsAsClick, opensAsReader } from '../../src/articles/rules/click.js';

const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Safari/605.1.15';

describe('opensAsReader', () => {
  it('records signed-in browsers only', () => {
    expect(opensAsReader({ method: 'GET', userAgent: BROWSER, userId: 7 })).toBe(true);
    expect(opensAsReader({ method: 'GET', userAgent: BROWSER, userId: undefined })).toBe(false);
    expect(opensAsReader({ method: 'HEAD', userAgent: BROWSER, userId: 7 })).toBe(false);
    expect(opensAsReader({ method: 'GET', userAgent: 'python-requests/2.32', userId: 7 })).toBe(false);
    expect(opensAsReader({ method: 'GET', userAgent: undefined, userId: 7 })).toBe(false);
  });

  it('does not depend on the article status, unlike a counted click', () => {
    const req = { method: 'GET', userAgent: BROWSER, userId: 7 };
    expect(opensAsReader(req)).toBe(true);
    expect(countsAsClick(req, 'submitted')).toBe(false);
    expect(countsAsClick(req, 'approved')).toBe(true);
  });
});
