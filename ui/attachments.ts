import type { ServerResponse } from 'node:http';
import { INLINE_IMAGE_TYPES, servedAs, type AttachmentInfo, type Brain } from '../src/index.js';
import { html, href, type Html } from './html.js';
import { imagePixels, MAX_INLINE_IMAGE_PIXELS } from './image-size.js';

/*
 * Files messages carry, in the ui. A file is served as a download under a safe content type
 * (servedAs: never HTML, SVG or any type a browser would run), with nosniff and a sandboxing CSP;
 * only raster images (PNG, JPEG, GIF, WebP, sniffed from their bytes) are shown inline.
 */

const SHA = /^[0-9a-f]{64}$/;

/** `/attachments/<sha256>`: the file's bytes, or false when there is no such file. */
export function serveAttachment(reader: Brain, res: ServerResponse, sha: string): boolean {
  if (!SHA.test(sha)) return false;
  const file = reader.messages.getAttachment(sha);
  if (!file) return false;
  const bytes = reader.messages.attachmentBytes(file.sha256);
  let { contentType, inline } = servedAs(file.media_type);
  // An image declaring more pixels than a page should decode is a download, which no <img> shows.
  if (inline && (imagePixels(bytes, file.media_type) ?? 0) > MAX_INLINE_IMAGE_PIXELS) {
    contentType = 'application/octet-stream';
    inline = false;
  }
  res.writeHead(200, {
    'Content-Type': contentType,
    'Content-Length': String(bytes.length),
    'Content-Disposition': `${inline ? 'inline' : 'attachment'}; ${dispositionName(file.name)}`,
    'X-Content-Type-Options': 'nosniff',
    // Opened by itself, a file runs nothing and loads nothing.
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'Cache-Control': 'private, max-age=31536000, immutable',
  });
  res.end(bytes);
  return true;
}

/** The file name for Content-Disposition: an ASCII fallback and the UTF-8 name (RFC 6266). */
export function dispositionName(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1_048_576) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1_048_576).toFixed(1)} MiB`;
}

// Why a file is found by its name only: its text took too long or too much memory to read.
const SKIPPED: Record<NonNullable<AttachmentInfo['text_skipped']>, string> = {
  timeout: 'took too long',
  memory: 'needed too much memory',
};

/** A message's files: a download link each (name, type, size), safe images shown inline. */
export function attachmentList(files: readonly AttachmentInfo[] | undefined): Html | string {
  if (!files?.length) return '';
  return html`<ul class="attachments" aria-label="Attachments">
    ${files.map((f) => {
      const url = href(`/attachments/${f.sha256}`);
      return html`<li>
        <a href="${url}" download="${f.name}">${f.name}</a>
        <span class="meta">${f.media_type}, ${size(f.size)}</span>
        ${f.text_skipped ? html`<span class="meta">· text not extracted: ${SKIPPED[f.text_skipped]}</span>` : ''}
        ${
          INLINE_IMAGE_TYPES.has(f.media_type)
            ? html`<br /><img src="${url}" alt="${f.name}" loading="lazy" />`
            : ''
        }
      </li>`;
    })}
  </ul>`;
}
