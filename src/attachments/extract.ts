import { asText } from './sniff.js';

/** The most text of one attachment that is indexed with its message (characters). */
export const MAX_INDEXED_TEXT_CHARS = 64 * 1024;

/** The heap of the worker that reads one PDF or HTML file (MiB). */
export const EXTRACT_HEAP_MB = 256;

/** Why a file's text was not read: it took too long, or needed more memory than allowed. */
export type TextSkipped = 'timeout' | 'memory';

/** A file's words, or why they were not read. */
export interface ExtractedText {
  text: string | undefined;
  skipped?: TextSkipped;
}

/**
 * The words of a file where it has some: text formats as they are, HTML without its markup and
 * PDFs through unpdf, both in a worker with `timeoutMs` and a capped heap (a crafted file can make
 * either parser run for minutes or fill memory). Cut to MAX_INDEXED_TEXT_CHARS. A file whose text
 * cannot be read, or not in time, is stored without text, never refused.
 */
export async function extractText(
  bytes: Uint8Array,
  mediaType: string,
  timeoutMs: number,
  heapMb = EXTRACT_HEAP_MB,
): Promise<ExtractedText> {
  let read: ExtractedText = { text: undefined };
  if (mediaType === 'application/pdf') read = await inWorker('pdf', bytes, timeoutMs, heapMb);
  else if (mediaType === 'image/svg+xml') return read;
  else if (
    mediaType.startsWith('text/') ||
    mediaType.endsWith('/json') ||
    mediaType.endsWith('/xml')
  ) {
    const text = asText(bytes);
    if (text === undefined) return read;
    read = mediaType === 'text/html' ? await inWorker('html', text, timeoutMs, heapMb) : { text };
  }
  if (read.text === undefined) return read;
  const text = read.text.trim();
  if (text.length === 0) return { text: undefined };
  return {
    text: text.length > MAX_INDEXED_TEXT_CHARS ? text.slice(0, MAX_INDEXED_TEXT_CHARS) : text,
  };
}

// The worker's code, run as a CommonJS script (`eval`) rather than from a file of its own: it
// then loads the same way from the sources, tsc's dist/ and the CLI's rollup bundle, whose
// chunks move modules. It loads the parsers from this module's place, so from the package's
// node_modules. A parser's failure (a damaged PDF, HTML nested past the stack) is a null text.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const load = require('node:module').createRequire(workerData.from);
async function read({ kind, input }) {
  if (kind === 'html') {
    const { convert } = load('html-to-text');
    return convert(input, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] });
  }
  const { extractText, getDocumentProxy } = load('unpdf');
  const doc = await getDocumentProxy(input);
  return (await extractText(doc, { mergePages: true })).text;
}
read(workerData).then(
  (text) => parentPort.postMessage(typeof text === 'string' ? text : null),
  () => parentPort.postMessage(null),
);
`;

/**
 * Read a file in a worker that is terminated after `timeoutMs`; one that runs out of its heap
 * ends by itself. The worker's console output is dropped: `brain mcp`'s stdout is JSON-RPC, and
 * pdf.js warns there about what it cannot parse.
 */
async function inWorker(
  kind: 'pdf' | 'html',
  input: Uint8Array | string,
  timeoutMs: number,
  heapMb: number,
): Promise<ExtractedText> {
  if (timeoutMs <= 0) return { text: undefined, skipped: 'timeout' };
  // Loaded here, not with the module: every command loads this module, few read a file.
  const { Worker } = await import('node:worker_threads');
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // A copy: unpdf takes over the buffer it is given.
      workerData: { kind, input, from: import.meta.url },
      resourceLimits: {
        maxOldGenerationSizeMb: heapMb,
        maxYoungGenerationSizeMb: 32,
        stackSizeMb: 4,
      },
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    let done = false;
    const finish = (result: ExtractedText) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ text: undefined, skipped: 'timeout' }), timeoutMs);
    worker.on('message', (text: string | null) => finish({ text: text ?? undefined }));
    worker.on('error', (error: Error & { code?: string }) =>
      finish(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { text: undefined, skipped: 'memory' }
          : { text: undefined },
      ),
    );
    worker.on('exit', () => finish({ text: undefined }));
  });
}
