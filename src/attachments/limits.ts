/** The largest file a message may carry by default: 10 MiB (BRAIN_MAX_ATTACHMENT_BYTES). */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** The most bytes of files a brain keeps by default: 1 GiB (BRAIN_MAX_ATTACHMENTS_TOTAL_BYTES). */
export const DEFAULT_MAX_ATTACHMENTS_TOTAL_BYTES = 1024 * 1024 * 1024;

/**
 * The time reading the text of one send's PDF and HTML files may take by default: 20 s
 * (BRAIN_ATTACHMENT_TEXT_TIMEOUT_MS). Files left when it is spent are kept without their text.
 */
export const DEFAULT_ATTACHMENT_TEXT_TIMEOUT_MS = 20_000;
