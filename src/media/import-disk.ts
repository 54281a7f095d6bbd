/**
 * Move the profile pictures of the disk era (PROFILE_PICTURES_DIR, random `<32 hex>.<ext>` names)
 * into the media table: each file a profile still references is sniffed, re-encoded (metadata
 * stripped, like a new upload), stored content-addressed, and the profile is pointed at the new
 * name; the old name stays as an alias (GET of the old URL redirects). Files no profile references
 * are skipped. Idempotent: a second run finds no profile on an old name and changes nothing.
 * The files are left on disk (the directory can be deleted once every process runs this release).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type Kysely, type Transaction } from 'kysely';
import { aliasLegacyPicture, legacyPictureNames, lockMedia, putMedia } from './queries.js';
import { PictureRejected, reencodePicture } from './process.js';
import { sniffPicture } from './profile-pictures.js';
import { LEGACY_NAME_PATTERN } from './store.js';

interface ImportResult {
  moved: number;
  missing: string[];
  rejected: string[];
}

export async function importPicturesFromDisk(trx: Transaction<any> | Kysely<any>, dir: string): Promise<ImportResult> {
  const result: ImportResult = { moved: 0, missing: [], rejected: [] };
  for (const name of await legacyPictureNames(trx)) {
    if (!LEGACY_NAME_PATTERN.test(name)) continue;
    const bytes = await readFile(path.join(dir, name)).catch(() => null);
    if (!bytes) {
      result.missing.push(name);
      continue;
    }
    const ext = await sniffPicture(bytes);
    let pic;
    try {
      if (!ext) throw new PictureRejected('not a JPEG, PNG or GIF');
      pic = await reencodePicture(bytes, ext);
    } catch (err) {
      if (!(err instanceof PictureRejected)) throw err;
      result.rejected.push(name);
      continue;
    }
    await lockMedia(trx as Transaction<any>, [pic.sha256]);
    const newName = await putMedia(trx as Transaction<any>, { sha256: pic.sha256, bytes: pic.bytes, type: pic.type, width: pic.width, height: pic.height });
    await aliasLegacyPicture(trx, name, pic.sha256, newName);
    result.moved++;
  }
  return result;
}
