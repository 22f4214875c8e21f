import { asText } from './sniff.js';

/** The most text of one attachment that is indexed with its message (characters). */
export const MAX_INDEXED_TEXT_CHARS = 64 * 1024;

/**
 * The words of a file where it has some: text formats as they are (HTML without its markup),
 * PDFs through unpdf (loaded only when a PDF arrives), nothing for other formats. Cut to
 * MAX_INDEXED_TEXT_CHARS. A file whose text cannot be read is stored without text, never refused.
 */
export async function extractText(
  bytes: Uint8Array,
  mediaType: string,
): Promise<string | undefined> {
  let text: string | undefined;
  if (mediaType === 'application/pdf') text = await pdfText(bytes);
  else if (mediaType === 'image/svg+xml') text = undefined;
  else if (
    mediaType.startsWith('text/') ||
    mediaType.endsWith('/json') ||
    mediaType.endsWith('/xml')
  ) {
    text = asText(bytes);
    if (text !== undefined && mediaType === 'text/html') text = await htmlText(text);
  }
  if (text === undefined) return undefined;
  text = text.trim();
  if (text.length === 0) return undefined;
  return text.length > MAX_INDEXED_TEXT_CHARS ? text.slice(0, MAX_INDEXED_TEXT_CHARS) : text;
}

async function htmlText(html: string): Promise<string> {
  const { convert } = await import('html-to-text');
  return convert(html, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] });
}

async function pdfText(bytes: Uint8Array): Promise<string | undefined> {
  const { extractText: pdf, getDocumentProxy } = await import('unpdf');
  try {
    // unpdf takes over the buffer it is given: hand it a copy.
    const doc = await getDocumentProxy(new Uint8Array(bytes));
    const { text } = await pdf(doc, { mergePages: true });
    return text;
  } catch {
    // A damaged or hostile PDF keeps its bytes and loses only its words in the index.
    return undefined;
  }
}
