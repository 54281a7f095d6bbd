/** Response schemas shared by several route files (also the OpenAPI components). */
import { z } from 'zod';

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
