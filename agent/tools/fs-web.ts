import { createListFilesTool } from './list-files.js';
import { createReadFileTool } from './read-file.js';
import { readInboxTool } from './read-inbox.js';
import { createSendFileTool } from './send-file.js';
import { sendMessageTool } from './send-message.js';
import type { Tool } from './types.js';
import type { ToolsConfig } from './web-config.js';
import { createWebFetchTool } from './web-fetch.js';
import { createWebSearchTool } from './web-search.js';
import { createWriteFileTool } from './write-file.js';

/**
 * The file, web and messaging tools for a config. `readOnly` tools only read (files in the roots,
 * the web, the inbox); write_file, send_message and send_file act, and need the permission policy before a
 * channel offers them unasked.
 */
export function fsWebTools(
  config: ToolsConfig,
  secrets: { braveApiKey?: string | undefined } = {},
): Tool[] {
  return [
    createReadFileTool({ roots: config.roots }),
    createListFilesTool({ roots: config.roots }),
    createWriteFileTool({ roots: config.roots }),
    createWebFetchTool(config.web),
    createWebSearchTool(config.web.search, {
      braveApiKey: secrets.braveApiKey,
      timeoutSeconds: config.web.timeoutSeconds,
    }),
    readInboxTool,
    sendMessageTool,
    createSendFileTool({ roots: config.roots }),
  ] as Tool[];
}
