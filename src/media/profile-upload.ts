/**
 * Route-level body parser for PUT /wallet/profile/: multipart/form-data is parsed here (the app-wide
 * koa-body stays JSON/urlencoded only, so no other route accepts uploads); JSON was already parsed by
 * the app. Any other body type is 415.
 *
 * The uploaded file never touches the disk: formidable streams it into memory through
 * fileWriteStreamHandler, capped at PROFILE_PICTURE_MAX_BYTES (one file, small text fields), so a
 * rejected or aborted upload leaves no temporary file behind. Only a picture that passed every check
 * is written, by ProfilePictureStore.
 */
import { Writable } from 'node:stream';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { DomainError } from '../platform/errors/index.js';
import { PROFILE_PICTURE_MAX_BYTES } from './profile-pictures.js';

/** Text fields of the profile form are short; this bounds the non-file part of a request. */
const FIELDS_MAX_BYTES = 64 * 1024;

interface UploadedFile {
  field: string;
  filename: string | null;
  bytes: Buffer;
}

declare module 'koa' {
  interface DefaultState {
    /** The file of a multipart profile update, read into memory (at most one). */
    upload?: UploadedFile;
  }
}

/** Multipart framing (boundaries, part headers) beyond the fields and the file. */
const FRAMING_BYTES = 16 * 1024;

/**
 * A multipart body longer than its text fields can be must carry a file: such a request can be
 * refused by upload policy before its body is read. (A short one, or one of unknown length, may be a
 * form without a file, and is read first.)
 */
export function announcesUpload(ctx: Context): boolean {
  return Boolean(ctx.is('multipart/form-data')) && (ctx.request.length ?? 0) > FIELDS_MAX_BYTES + FRAMING_BYTES;
}

// formidable's numeric error codes (formidable/src/FormidableError.js).
const FORMIDABLE_TOO_LARGE = new Set([1009, 1016]);
const FORMIDABLE_FIELDS = new Set([1006, 1007]);
const FORMIDABLE_TOO_MANY_FILES = 1015;

export function profileBodyParser(): Middleware {
  const buffers = new WeakMap<object, Buffer[]>();
  const parse = koaBody({
    json: false,
    urlencoded: false,
    text: false,
    multipart: true,
    parsedMethods: ['PUT', 'POST', 'PATCH'] as never,
    formidable: {
      maxFiles: 1,
      maxFileSize: PROFILE_PICTURE_MAX_BYTES,
      maxTotalFileSize: PROFILE_PICTURE_MAX_BYTES,
      maxFields: 20,
      maxFieldsSize: FIELDS_MAX_BYTES,
      // An empty file part is what a browser sends when no file was chosen; handled below.
      allowEmptyFiles: true,
      minFileSize: 0,
      fileWriteStreamHandler: (file?: object) => {
        const chunks: Buffer[] = [];
        if (file) buffers.set(file, chunks);
        return new Writable({
          write(chunk: Buffer, _enc, cb) {
            chunks.push(chunk);
            cb();
          },
        });
      },
    } as never,
  });

  return async (ctx: Context, next) => {
    if (!ctx.request.length && !ctx.get('transfer-encoding')) return next();
    if (ctx.is('application/json')) return next();
    if (!ctx.is('multipart/form-data')) {
      throw new DomainError('unsupported_media_type', 'send the profile as application/json or multipart/form-data');
    }
    // Refuse an oversized upload before reading it.
    if (ctx.request.length > PROFILE_PICTURE_MAX_BYTES + FIELDS_MAX_BYTES + FRAMING_BYTES) throw tooLarge();
    try {
      await parse(ctx, async () => undefined);
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code !== undefined && FORMIDABLE_TOO_LARGE.has(code)) throw tooLarge();
      if (code === FORMIDABLE_TOO_MANY_FILES) throw new DomainError('multipart_invalid', 'send at most one file (profile_picture)');
      if (code !== undefined && FORMIDABLE_FIELDS.has(code)) throw new DomainError('multipart_invalid', 'too many or too large text fields');
      throw new DomainError('multipart_invalid', 'the multipart/form-data body could not be parsed');
    }
    const files = (ctx.request as { files?: Record<string, unknown> }).files ?? {};
    for (const [field, value] of Object.entries(files)) {
      const file = (Array.isArray(value) ? value[0] : value) as { originalFilename?: string | null };
      const bytes = Buffer.concat(buffers.get(file as object) ?? []);
      // A browser form with no file chosen sends an empty part without a file name: no upload.
      if (bytes.length === 0 && !file.originalFilename) continue;
      ctx.state.upload = { field, filename: file.originalFilename ?? null, bytes };
    }
    await next();
  };
}

function tooLarge() {
  return new DomainError('profile_picture_too_large', `profile_picture must be at most ${PROFILE_PICTURE_MAX_BYTES / (1024 * 1024)} MB`);
}
