/** API-key tiers and their daily request quotas (the rate limiter meters them; identity issues the keys). */
export const tiers = ['free', 'builder', 'enterprise'] as const;
export type Tier = (typeof tiers)[number];

/** Requests per UTC day; null = unlimited. */
export const tierDailyQuota: Record<Tier, number | null> = { free: 1000, builder: 50_000, enterprise: null };
