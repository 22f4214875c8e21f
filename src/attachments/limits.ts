/** The largest file a message may carry by default: 10 MiB (BRAIN_MAX_ATTACHMENT_BYTES). */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** The most bytes of files a brain keeps by default: 1 GiB (BRAIN_MAX_ATTACHMENTS_TOTAL_BYTES). */
export const DEFAULT_MAX_ATTACHMENTS_TOTAL_BYTES = 1024 * 1024 * 1024;
