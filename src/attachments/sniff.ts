import { extname } from 'node:path';

/*
 * A file's media type, read from its bytes: what the brain stores and serves is never the
 * sender's claim. Known binary formats by their magic numbers; otherwise text when the bytes are
 * UTF-8 without NULs (then the name's extension picks the kind of text); otherwise
 * application/octet-stream.
 */

const MAGIC: ReadonlyArray<[string, number[], number?]> = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['application/zip', [0x50, 0x4b, 0x03, 0x04]],
  ['application/gzip', [0x1f, 0x8b]],
  ['audio/ogg', [0x4f, 0x67, 0x67, 0x53]],
];

const TEXT_BY_EXTENSION: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.diff': 'text/x-diff',
  '.patch': 'text/x-diff',
  '.svg': 'image/svg+xml',
  '.xml': 'application/xml',
};

function startsWith(bytes: Uint8Array, magic: number[], at = 0): boolean {
  if (bytes.length < at + magic.length) return false;
  return magic.every((b, i) => bytes[at + i] === b);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as UTF-8 text, or undefined when they are not text (invalid UTF-8, a NUL). */
export function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    // Not UTF-8: binary, or text in an encoding the brain does not read; either way no text.
    return undefined;
  }
}

export function sniffMediaType(bytes: Uint8Array, name: string): string {
  for (const [type, magic] of MAGIC) if (startsWith(bytes, magic)) return type;
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  const text = asText(bytes);
  if (text === undefined) return 'application/octet-stream';
  const byName = TEXT_BY_EXTENSION[extname(name).toLowerCase()];
  if (byName) return byName;
  // Markup that a browser would run, whatever the name says, is never plain text.
  const head = text.slice(0, 1024).trimStart().toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg')))
    return 'image/svg+xml';
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'text/html';
  return 'text/plain';
}

/** Images a browser may show inline from the brain: raster formats that run no script. */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/** Types served as themselves (for download); any other is served as application/octet-stream. */
const SERVED_AS_IS: ReadonlySet<string> = new Set([
  ...INLINE_IMAGE_TYPES,
  'application/pdf',
  'text/plain',
  'text/markdown',
  'text/csv',
  'text/x-diff',
  'application/json',
]);

/** How the ui serves an attachment: a safe content type, and inline only for raster images. */
export function servedAs(mediaType: string): { contentType: string; inline: boolean } {
  if (!SERVED_AS_IS.has(mediaType))
    return { contentType: 'application/octet-stream', inline: false };
  const text = mediaType.startsWith('text/') || mediaType === 'application/json';
  return {
    contentType: text ? `${mediaType}; charset=utf-8` : mediaType,
    inline: INLINE_IMAGE_TYPES.has(mediaType),
  };
}
