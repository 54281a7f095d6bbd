/** Response schemas shared by several route files (also the OpenAPI components). */
import { z } from 'zod';

export const profileSchema = z
  .object({
    id: z.number().int(),
    username: z.string().nullable(),
    ethereum_address: z.string().meta({ description: 'EIP-55 checksummed address' }),
    display_name: z.string().nullable(),
    bio: z.string().nullable(),
    profile_picture: z.string().nullable().meta({ description: 'Absolute URL of the picture, or null' }),
    twitter_handle: z.string().nullable().meta({ description: 'Without the leading @' }),
    website: z.string().nullable(),
    location: z.string().nullable(),
    account_type: z.enum(['human', 'cyborg', 'bot']),
    model_name: z.string().nullable(),
    roles: z.array(z.enum(['editor', 'staff'])),
    created_at: z.string().meta({ description: 'ISO 8601 UTC' }),
  })
  .meta({ id: 'Profile' });
