/** Content-addressed media names: `<64 hex sha256>.<ext>` of the stored bytes (src/media/store.ts). */

export const PICTURE_TYPES = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
} as const;
export type PictureExt = keyof typeof PICTURE_TYPES;

const MEDIA_NAME_PATTERN = /^([0-9a-f]{64})\.(jpg|png|gif)$/;
/** Names of the disk era (random 128-bit ids): redirected to their content-addressed name. */
export const LEGACY_NAME_PATTERN = /^[0-9a-f]{32}\.(jpg|png|gif)$/;

const EXT_OF: Record<string, PictureExt> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif' };

export function mediaName(sha256: Buffer, type: string): string {
  return `${sha256.toString('hex')}.${EXT_OF[type]}`;
}

export function parseMediaName(name: string): { sha256: Buffer; type: string } | null {
  const m = MEDIA_NAME_PATTERN.exec(name);
  if (!m) return null;
  return { sha256: Buffer.from(m[1], 'hex'), type: PICTURE_TYPES[m[2] as PictureExt] };
}

export interface NewMedia {
  sha256: Buffer;
  bytes: Buffer;
  type: string;
  width?: number | null;
  height?: number | null;
}
