/** Helpers of the profile tests: the multipart form of PUT /wallet/profile/ and the count of stored pictures. */
import type { Db } from '../../src/platform/db.js';

/** A multipart form with these text fields and files (field `profile_picture` unless named). */
export function profileForm(fields: Record<string, string>, files: { field?: string; name: string; type: string; bytes: Buffer }[] = []): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const file of files) f.append(file.field ?? 'profile_picture', new Blob([file.bytes], { type: file.type }), file.name);
  return f;
}

/** How many pictures the media table holds. */
export async function mediaCount(db: Db): Promise<number> {
  const r = await db
    .selectFrom('media')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
