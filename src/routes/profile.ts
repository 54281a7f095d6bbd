import type { AppDeps } from '../deps.js';
import { AppError } from '../errors.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { getUserById, toProfile } from '../queries/users.js';
import { profileSchema } from './schemas.js';

export function profileRoutes(deps: AppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/wallet/me/',
      operationId: 'getMyProfile',
      summary: 'The signed-in user\'s profile record',
      tags: ['profile'],
      auth: 'user',
      responses: { 200: { description: 'profile', schema: profileSchema } },
      async handler(ctx) {
        const u = await getUserById(deps.db, ctx.state.user!.id);
        if (!u) throw new AppError(401, 'account_not_found', 'the account no longer exists');
        ctx.body = toProfile(u, deps.config.PUBLIC_BASE_URL);
      },
    }),
  ];
}
