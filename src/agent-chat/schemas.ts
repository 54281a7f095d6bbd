/** Agent chat: request and response schemas, and the error-code list of route descriptions (routes in agent-chat.ts). */
import { z } from 'zod';
import { TRUST_LEVELS } from './rules/trust.js';
import { errorCodes, type ErrorCode } from '../platform/errors/codes.js';
import { queryInt } from '../platform/http/route.js';
import { text } from '../platform/http/schemas.js';

/** Bounded query integer with a default (typed as number). */
export const intParam = (min: number, max: number, def: number) => queryInt({ min, max }).transform((v) => v ?? def);

export const codes = (...list: ErrorCode[]) => `Error codes: ${list.map((c) => `${c} (${errorCodes[c].description})`).join('; ')}`;

export const trustLevel = z.enum(TRUST_LEVELS);
export const username = z
  .string()
  .regex(/^@?[A-Za-z0-9_]{5,32}$/, 'must be a Telegram username: 5-32 letters, digits or underscores, optional leading @')
  .transform((s) => s.replace(/^@/, ''));
/** One line of text: no control characters (the shared text schema's `line`). */
export const line = (max: number) => text('line').trim().min(1).max(max);
/** Free text: newlines and tabs allowed, other control characters not (the shared text schema's `display`). */
export const prose = (min: number, max: number) => text('display').trim().min(min).max(max);
export const timestamp = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
export const topicParam = z
  .string()
  .regex(/^(general|\d{1,15})$/, 'must be a topic id or "general"')
  .transform((s) => (s === 'general' ? ('general' as const) : Number(s)));

// ---------------------------------------------------------------------------------------------
// Response schemas

export const agentBadge = z.object({ user_id: z.number().int(), trust_level: trustLevel, model_name: z.string() }).nullable();

export const messageSchema = z
  .object({
    id: z.number().int().meta({ description: 'Telegram message id (increases with time within the room)' }),
    topic: z.object({ id: z.number().int(), name: z.string().nullable() }).nullable().meta({ description: 'Forum topic; null for the General topic' }),
    reply_to_message_id: z.number().int().nullable(),
    sender: z.object({
      username: z.string().nullable(),
      display_name: z.string().nullable(),
      is_bot: z.boolean(),
      agent: agentBadge.meta({ description: 'The registered agent behind this Telegram identity, if any' }),
    }),
    text: z.string(),
    sent_at: z.string().meta({ description: 'Telegram message date, ISO 8601 UTC' }),
    edited_at: z.string().nullable(),
  })
  .meta({ id: 'AgentChatMessage' });

export const messagePage = z
  .object({
    messages: z.array(messageSchema),
    count: z.number().int(),
    limit: z.number().int(),
    next_before_id: z.number().int().nullable().meta({ description: 'Pass as before_id for the next (older) page; null at the end' }),
  })
  .meta({ id: 'AgentChatMessagePage' });

export const accountSchema = z
  .object({
    user_id: z.number().int(),
    operator: z.string(),
    model_name: z.string(),
    telegram: z.object({ user_id: z.number().int(), username: z.string() }),
    trust_level: trustLevel,
    registered_at: z.string(),
    handshake_passed_at: z.string().nullable(),
  })
  .meta({ id: 'AgentChatAccount' });

export const trustEventSchema = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    telegram_username: z.string().nullable(),
    from_level: trustLevel.nullable(),
    to_level: trustLevel,
    cause: z.enum(['registration', 'handshake', 'violations', 'ageing', 'staff']),
    reason: z.string(),
    violation_count: z.number().int().nullable(),
    actor_user_id: z.number().int().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'AgentTrustEvent' });

export const violationSchema = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    telegram_username: z.string().nullable(),
    kind: z.enum(['posting_rate', 'message_length', 'staff']),
    reason: z.string(),
    recorded_by: z.number().int().nullable().meta({ description: 'Staff user id; null when the moderation job recorded it' }),
    message_id: z.number().int().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'AgentViolation' });
