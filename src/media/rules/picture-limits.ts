/**
 * How much image work one upload may ask for, checked on the header (sharp metadata) before any
 * frame is decoded. The work of decoding, resizing and re-encoding grows with width x height x
 * frames, and a GIF compresses flat frames so well that a 69 KB file can hold 40 frames of
 * 1000x1000 (40 million pixels, seconds of CPU): animations get a tighter cap than still pictures,
 * whose decoders can shrink on load (JPEG) and whose cost is one frame.
 */

/** Most frames an animated GIF may have. */
const PICTURE_MAX_FRAMES = 50;
/** Most pixels over all frames (width x height x frames) of a GIF. */
const PICTURE_MAX_ANIMATED_PIXELS = 16_000_000;
/** Most pixels of a still JPEG or PNG (a 48-megapixel phone photo fits). */
export const PICTURE_MAX_STILL_PIXELS = 50_000_000;

export interface PictureSize {
  width: number;
  /** Height of one frame. */
  height: number;
  frames: number;
}

/** Why a picture of this size is refused, or null when it is within the caps. */
export function pictureSizeProblem(size: PictureSize, animatedFormat: boolean): string | null {
  const pixels = size.width * size.height * size.frames;
  if (animatedFormat) {
    if (size.frames > PICTURE_MAX_FRAMES) return `an animation may have at most ${PICTURE_MAX_FRAMES} frames; this one has ${size.frames}`;
    if (pixels > PICTURE_MAX_ANIMATED_PIXELS) {
      return `an animation may have at most ${PICTURE_MAX_ANIMATED_PIXELS / 1e6} million pixels over all frames (width x height x frames); this one has ${size.width}x${size.height}x${size.frames}`;
    }
    return null;
  }
  if (pixels > PICTURE_MAX_STILL_PIXELS) return `a picture may have at most ${PICTURE_MAX_STILL_PIXELS / 1e6} million pixels; this one is ${size.width}x${size.height}`;
  return null;
}
