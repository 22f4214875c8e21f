/*
 * The pixel count a raster image says it has, read from its header without decoding it: the ui
 * shows images inline, and a file of a few megabytes can declare billions of pixels that the
 * browser would try to decode (a decompression bomb).
 */

/** The most pixels an image shown inline may have: 8192 × 8192 (256 MiB once decoded). */
export const MAX_INLINE_IMAGE_PIXELS = 8192 * 8192;

/** Width × height from a PNG, GIF, WebP or JPEG header; undefined when it cannot be read. */
export function imagePixels(b: Buffer, mediaType: string): number | undefined {
  const size = dimensions(b, mediaType);
  return size && size[0] * size[1];
}

function dimensions(b: Buffer, mediaType: string): [number, number] | undefined {
  switch (mediaType) {
    case 'image/png':
      if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
      return [b.readUInt32BE(16), b.readUInt32BE(20)];
    case 'image/gif':
      return b.length < 10 ? undefined : [b.readUInt16LE(6), b.readUInt16LE(8)];
    case 'image/webp':
      return webp(b);
    case 'image/jpeg':
      return jpeg(b);
    default:
      return undefined;
  }
}

function webp(b: Buffer): [number, number] | undefined {
  if (b.length < 30) return undefined;
  const kind = b.toString('latin1', 12, 16);
  if (kind === 'VP8 ') return [b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff];
  if (kind === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1];
  }
  if (kind === 'VP8X') return [b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1];
  return undefined;
}

/** The size in the first start-of-frame segment, walking the segments before it. */
function jpeg(b: Buffer): [number, number] | undefined {
  let i = 2;
  while (i + 9 <= b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    // Markers without a length: TEM, the restarts, SOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      i += 2;
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isFrame) return [b.readUInt16BE(i + 7), b.readUInt16BE(i + 5)];
    i += 2 + b.readUInt16BE(i + 2);
  }
  return undefined;
}
