import { describe, expect, it } from 'vitest';
import { fsWebTools } from '../../../agent/tools/fs-web.js';
import { toolsConfigSchema } from '../../../agent/tools/web-config.js';

describe('fsWebTools', () => {
  it('marks the reading tools read-only and the acting ones (write_file, send_message, send_file) not', () => {
    const tools = fsWebTools(toolsConfigSchema.parse({}), {});
    expect(tools.filter((t) => t.readOnly).map((t) => t.name)).toEqual([
      'read_file',
      'list_files',
      'web_fetch',
      'web_search',
      'read_inbox',
    ]);
    expect(tools.filter((t) => !t.readOnly).map((t) => t.name)).toEqual([
      'write_file',
      'send_message',
      'send_file',
    ]);
  });
});
