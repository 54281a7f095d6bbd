/** Response schemas shared by several route files (also the OpenAPI components). */
import { z } from 'zod';

/**
 * What free text may hold, by where it goes:
 * - `stored`: anything PostgreSQL text can hold, i.e. no NUL (U+0000) and no unpaired surrogate
 *   (not UTF-8; the driver would store U+FFFD in its place). Every request field of free text.
 * - `display`: shown to other people (headlines, yaps, bios, names): also no C0 control other than
 *   tab, line feed and carriage return, no DEL, and no bidirectional embedding, override or
 *   isolate (U+202A-U+202E, U+2066-U+2069), which reorder the text around them for every reader
 *   (HTML pages escape them; JSON clients get them as sent).
 * - `line`: one line of display text: tab, line feed and carriage return refused too.
 */
type TextKind = 'stored' | 'display' | 'line';

const FORBIDDEN: Record<TextKind, RegExp> = {
  stored: /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
  display: /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u202A-\u202E\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
  line: /[\u0000-\u001F\u007F\u202A-\u202E\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
};

function describeCharacter(ch: string): string {
  const cp = `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  if (ch === '\u0000') return `a NUL byte (${cp})`;
  if (/[\uD800-\uDFFF]/.test(ch)) return `an unpaired surrogate (${cp}); send well-formed UTF-8`;
  if (/[\u202A-\u202E\u2066-\u2069]/.test(ch)) return `the bidirectional control ${cp}`;
  return `the control character ${cp}`;
}

/**
 * The one string schema of request free text (see TextKind). A refused character is a field issue
 * with code `forbidden_character` naming it (400 validation_failed). Chain the usual checks on it:
 * `text('display').trim().max(500)`.
 */
export function text(kind: TextKind = 'stored') {
  const forbidden = FORBIDDEN[kind];
  return z.string().check((c) => {
    const m = forbidden.exec(c.value);
    if (m) c.issues.push({ code: 'custom', input: c.value, params: { code: 'forbidden_character' }, message: `must not contain ${describeCharacter(m[0])}` });
  });
}

/** A timestamp field: ISO 8601 in UTC (src/platform/iso-time.ts writes them). */
export function isoTimestamp(description = 'ISO 8601 UTC timestamp') {
  return z.string().meta({ description, format: 'date-time' });
}

export const profileSchema = z
  .object({
    id: z.number().int().meta({ description: 'Account id' }),
    username: z.string().nullable().meta({ description: 'Set with POST /wallet/username/set/; null until set' }),
    ethereum_address: z.string().meta({ description: 'EIP-55 checksummed address' }),
    display_name: z.string().nullable().meta({ description: 'Free-form name shown instead of the username (max 64)' }),
    bio: z.string().nullable().meta({ description: 'Max 1000 characters' }),
    profile_picture: z.string().nullable().meta({ description: 'Absolute URL of the picture ({host_url}/media/profile-pictures/<file>), or null' }),
    twitter_handle: z.string().nullable().meta({ description: 'Without the leading @' }),
    website: z.string().nullable().meta({ description: 'Absolute http(s) URL (https:// is prepended when the input had no scheme)' }),
    location: z.string().nullable().meta({ description: 'Free-form (max 100)' }),
    account_type: z.enum(['human', 'cyborg', 'bot']).meta({ description: 'human, cyborg (AI-assisted human) or bot (fully automated)' }),
    model_name: z.string().nullable().meta({ description: 'AI model behind a cyborg or bot; null for humans' }),
    roles: z.array(z.enum(['editor', 'staff'])).meta({ description: 'Granted by staff; editor reviews submissions' }),
    created_at: z.string().meta({ description: 'Account creation, ISO 8601 UTC' }),
  })
  .meta({ id: 'Profile' });
