/**
 * Profile use cases: edits (with the model_name rule), the picture upload and swap, and the
 * username. The decisions are listed in routes.ts's header.
 */
import type { Db } from '../platform/db.js';
import { DomainError, type FieldIssue } from '../platform/errors/index.js';
import { validationError } from '../platform/http/route.js';
import { getUserById, usernameProblem, USERNAME_PATTERN, type UserRow } from '../identity/index.js';
import {
  deleteMediaIfUnreferenced,
  lockMedia,
  mediaName,
  parseMediaName,
  pictureSizeProblem,
  PicturePoolFull,
  PictureRejected,
  Pictures,
  PictureWorkerDown,
  putMedia,
  sniffPicture,
  type NewMedia,
} from '../media/index.js';
import { applyProfilePatch, lockProfilePicture, setUsername, type ProfilePatch } from './queries.js';
import type { ProfileBody } from './schemas.js';

/** A file part of a multipart profile edit. */
interface Upload {
  field: string;
  bytes: Uint8Array;
}

const TEXT_FIELDS = ['display_name', 'bio', 'twitter_handle', 'website', 'location', 'account_type', 'model_name'] as const;

function accountGone(): DomainError {
  return new DomainError('account_not_found', 'the account no longer exists');
}

export async function currentUser(db: Db, userId: number): Promise<NonNullable<UserRow>> {
  const u = await getUserById(db, userId);
  if (!u) throw accountGone();
  return u;
}

/** The model_name rule (see routes.ts's header); returns the patch with model_name resolved. */
function applyModelNameRule(body: ProfileBody, current: NonNullable<UserRow>, patch: ProfilePatch): ProfilePatch {
  if (body.account_type === undefined && body.model_name === undefined) return patch;
  const type = body.account_type ?? current.account_type;
  const model = body.model_name !== undefined ? body.model_name : current.model_name;
  const issue = (message: string): FieldIssue => ({ path: 'body.model_name', code: 'model_name_rule', message });
  if (type === 'human') {
    if (body.model_name) throw validationError([issue('only cyborg and bot accounts have a model_name')]);
    return { ...patch, model_name: null };
  }
  if (!model) throw validationError([{ ...issue(`model_name is required for ${type} accounts`), code: 'required' }]);
  return patch;
}

/**
 * Checks the upload by content and by the size in its header (caps of the media feature), then
 * re-encodes it (metadata dropped, scaled down) in the picture process: a full pool, or a picture
 * process that stopped or timed out, is 503 with Retry-After.
 */
/** 503 profile_picture_busy: every picture slot is taken. */
export function pictureBusy(retryAfterS: number): DomainError {
  const retry = String(retryAfterS);
  return new DomainError('profile_picture_busy', `every picture slot is busy; send it again in ${retry} s`, null, { headers: { 'Retry-After': retry } });
}

async function preparePicture(bytes: Uint8Array, pictures: Pictures): Promise<NewMedia> {
  const ext = await sniffPicture(bytes);
  if (!ext) throw new DomainError('profile_picture_unsupported_type', 'profile_picture must be a JPEG, PNG or GIF image (checked by content)');
  try {
    const size = await pictures.inspect(bytes, ext);
    const problem = pictureSizeProblem(size, ext === 'gif');
    if (problem) throw new DomainError('profile_picture_too_many_pixels', problem, { width: size.width, height: size.height, frames: size.frames });
    const p = await pictures.reencode(bytes, ext);
    return { sha256: p.sha256, bytes: p.bytes, type: p.type, width: p.width, height: p.height };
  } catch (err) {
    if (err instanceof PictureRejected) throw new DomainError('profile_picture_unreadable', 'profile_picture could not be decoded as an image (corrupt or truncated)');
    if (err instanceof PicturePoolFull) throw pictureBusy(err.retryAfterS);
    if (err instanceof PictureWorkerDown) {
      throw new DomainError('profile_picture_busy', 'the picture could not be processed now; send it again in 5 s', null, { headers: { 'Retry-After': '5' } });
    }
    throw err;
  }
}

/**
 * Apply the patch; returns the updated row. With `picture`, its media row is stored in the same
 * transaction; a replaced picture no profile references any more is deleted there too (both under
 * the media advisory locks, see src/media/store.ts).
 */
function savePatch(db: Db, userId: number, patch: ProfilePatch, picture?: NewMedia) {
  return db.transaction().execute(async (trx) => {
    const before = await lockProfilePicture(trx, userId);
    if (!before) return null;
    const changesPicture = 'profile_picture' in patch && before.profile_picture !== patch.profile_picture;
    const old = changesPicture ? parseMediaName(before.profile_picture ?? '') : null;
    await lockMedia(trx, [picture?.sha256, old?.sha256]);
    if (picture) await putMedia(trx, picture);
    const row = await applyProfilePatch(trx, userId, patch);
    const replaced = changesPicture ? before.profile_picture : null;
    if (replaced) await deleteMediaIfUnreferenced(trx, replaced);
    return row;
  });
}

/** The profile edit: only the fields sent change; an upload (re-encoded by `pictures`) replaces the picture. Returns the updated row. */
export async function editProfile(db: Db, pictures: Pictures, userId: number, body: ProfileBody, upload?: Upload) {
  if (upload && upload.field !== 'profile_picture') {
    throw validationError([{ path: `body.${upload.field}`, code: 'unknown_field', message: `unknown file field "${upload.field}"; the picture goes in profile_picture` }]);
  }
  const current = await currentUser(db, userId);
  let patch: ProfilePatch = {};
  for (const k of TEXT_FIELDS) {
    if (body[k] !== undefined) (patch as Record<string, unknown>)[k] = body[k];
  }
  patch = applyModelNameRule(body, current, patch);
  if (body.profile_picture === null) patch.profile_picture = null;
  let picture: NewMedia | undefined;
  if (upload) {
    picture = await preparePicture(upload.bytes, pictures);
    patch.profile_picture = mediaName(picture.sha256, picture.type);
  }
  const row = await savePatch(db, current.id, patch, picture);
  if (!row) throw accountGone();
  return row;
}

/** Set or change the username (unique in any letter case); returns the updated row. */
export async function changeUsername(db: Db, userId: number, requested: string) {
  const username = requested.trim();
  const problem = usernameProblem(username);
  if (problem === 'username_invalid') {
    throw new DomainError(problem, 'username must be 3-30 letters, digits or _, starting with a letter', { pattern: USERNAME_PATTERN.source });
  }
  if (problem === 'username_reserved') throw new DomainError(problem, `the username "${username}" is reserved`);
  const r = await setUsername(db, userId, username);
  if (r.taken) throw new DomainError('username_taken', `the username "${username}" is taken`);
  if (!r.row) throw accountGone();
  return r.row;
}
