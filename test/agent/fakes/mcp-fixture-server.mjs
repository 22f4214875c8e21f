// A small MCP server over stdio for the MCP client's tests, run as a real process:
// `node test/agent/fakes/mcp-fixture-server.mjs`. Built on the SDK's low-level Server so it can
// page tools/list (two tools a page) and announce tools/list_changed.
//
// Tools: echo {id, delayMs?} answers `echo <id>` after delayMs (so concurrent calls finish out
// of order); hang never answers; media answers an image, an embedded resource and a link;
// fail answers isError; grow adds a tool `extra_<n>` and sends notifications/tools/list_changed;
// pid answers the process id.
/* global setTimeout, Buffer, process */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const PAGE = 2;
const object = (properties = {}, required = []) => ({ type: 'object', properties, required });
const tools = [
  {
    name: 'echo',
    description: 'Answer echo and the id given, after a delay.',
    inputSchema: object({ id: { type: 'string' }, delayMs: { type: 'number' } }, ['id']),
    annotations: { readOnlyHint: true },
  },
  { name: 'hang', description: 'Never answers.', inputSchema: object() },
  { name: 'media', description: 'An image and resources.', inputSchema: object() },
  { name: 'fail', description: 'Always fails.', inputSchema: object() },
  { name: 'grow', description: 'Adds a tool.', inputSchema: object() },
  { name: 'pid', description: 'The process id.', inputSchema: object() },
];

const server = new Server(
  { name: 'fixture', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
);

server.setRequestHandler(ListToolsRequestSchema, (request) => {
  const start = Number(request.params?.cursor ?? 0);
  const page = tools.slice(start, start + PAGE);
  const next = start + PAGE < tools.length ? String(start + PAGE) : undefined;
  return { tools: page, ...(next ? { nextCursor: next } : {}) };
});

const text = (t) => ({ content: [{ type: 'text', text: t }] });

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'echo':
      await new Promise((r) => setTimeout(r, Number(args.delayMs ?? 0)));
      return text(`echo ${args.id}`);
    case 'hang':
      return new Promise(() => {});
    case 'media':
      return {
        content: [
          { type: 'text', text: 'here they are' },
          { type: 'image', data: Buffer.alloc(3000).toString('base64'), mimeType: 'image/png' },
          {
            type: 'resource',
            resource: { uri: 'file:///notes/a.txt', mimeType: 'text/plain', text: 'note A' },
          },
          {
            type: 'resource_link',
            uri: 'file:///big.bin',
            name: 'big',
            mimeType: 'application/octet-stream',
          },
        ],
      };
    case 'fail':
      return { content: [{ type: 'text', text: 'it broke' }], isError: true };
    case 'grow': {
      const name = `extra_${tools.length}`;
      tools.push({ name, description: 'An added tool.', inputSchema: object() });
      await server.sendToolListChanged();
      return text(`added ${name}`);
    }
    case 'pid':
      return text(String(process.pid));
    default:
      if (request.params.name.startsWith('extra_')) return text(`ran ${request.params.name}`);
      return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true };
  }
});

await server.connect(new StdioServerTransport());
