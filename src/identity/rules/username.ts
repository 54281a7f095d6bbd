/**
 * Username rules (POST /wallet/username/set/):
 *  - 3 to 30 characters of ASCII letters, digits and underscore, starting with a letter. Starting with a
 *    letter keeps a username from ever looking like an address (`0x...`) or a numeric id, so the public
 *    profile path /users/<address-or-username>/ is unambiguous.
 *  - unique regardless of case (`Alice` and `alice` are the same name); the case as set is what is shown.
 *  - a few names are reserved because they read as official or collide with path words.
 */
export const USERNAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{2,29}$/;

const RESERVED_USERNAMES: ReadonlySet<string> = new Set([
  'admin',
  'administrator',
  'api',
  'editor',
  'me',
  'moderator',
  'null',
  'root',
  'squid',
  'staff',
  'support',
  'system',
  'undefined',
]);

type UsernameProblem = 'username_invalid' | 'username_reserved';

/** Why `name` cannot be a username, or null when it is acceptable (uniqueness is the database's job). */
export function usernameProblem(name: string): UsernameProblem | null {
  if (!USERNAME_PATTERN.test(name)) return 'username_invalid';
  if (RESERVED_USERNAMES.has(name.toLowerCase())) return 'username_reserved';
  return null;
}

/** True when a public-profile path segment names a wallet address rather than a username. */
export function looksLikeAddress(segment: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(segment);
}
