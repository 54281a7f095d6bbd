/**
 * A GIF built byte by byte: a `width` x `height` canvas with `frames` frames of one pixel each. Its
 * header says width x height x frames, so it is as large as a real animation to a size check, yet it is
 * a few hundred bytes and costs nothing to build (no binary fixture, no encoder).
 */
export function tinyFramesGif(width: number, height: number, frames: number): Buffer {
  const le16 = (n: number) => [n & 255, n >> 8];
  const parts = [
    Buffer.from('GIF89a'),
    // Logical screen, a global colour table of two colours (black, white).
    Buffer.from([...le16(width), ...le16(height), 0x80, 0, 0, 0, 0, 0, 255, 255, 255]),
    // Loop forever.
    Buffer.from([0x21, 0xff, 0x0b]),
    Buffer.from('NETSCAPE2.0'),
    Buffer.from([3, 1, 0, 0, 0]),
  ];
  for (let i = 0; i < frames; i++) {
    // 100 ms delay; a 1x1 image at (i mod width, 0) so consecutive frames differ.
    const x = i % width;
    parts.push(Buffer.from([0x21, 0xf9, 4, 0, 10, 0, 0, 0]));
    parts.push(Buffer.from([0x2c, ...le16(x), 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0]));
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}
