#!/usr/bin/env node
// The example company's tool server (ops/company.example.yaml): a stdio MCP server that answers from a
// local Markdown handbook, so the example runs offline with nothing to install. Settings:
//   HANDBOOK_FILE   the Markdown file to serve (default: handbook.md beside this script); one `## ` heading
//                   per section
// Tools: `sections` lists the section titles, `read` answers one section, `search` the sections naming a word.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const file = process.env.HANDBOOK_FILE || new URL('handbook.md', import.meta.url);
const sections = readFileSync(file, 'utf8')
  .split(/^## /m)
  .slice(1)
  .map((chunk) => {
    const [title = '', ...body] = chunk.split('\n');
    return { title: title.trim(), text: body.join('\n').trim() };
  });

const input = (properties, required = []) => ({ type: 'object', properties, required });
const tools = [
  { name: 'sections', description: 'Lists the handbook section titles', inputSchema: input({}) },
  {
    name: 'read',
    description: 'Answers one handbook section by its title',
    inputSchema: input({ title: { type: 'string' } }, ['title']),
  },
  {
    name: 'search',
    description: 'Answers the handbook sections that mention a word',
    inputSchema: input({ word: { type: 'string' } }, ['word']),
  },
].map((tool) => ({ ...tool, annotations: { readOnlyHint: true } }));

const text = (value, isError = false) => ({ content: [{ type: 'text', text: value }], isError });
const render = (section) => `## ${section.title}\n${section.text}`;

const server = new Server({ name: 'handbook', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
  const args = params.arguments ?? {};
  switch (params.name) {
    case 'sections':
      return text(sections.map((s) => s.title).join('\n'));
    case 'read': {
      const wanted = String(args.title ?? '').toLowerCase();
      const found = sections.find((s) => s.title.toLowerCase() === wanted);
      return found ? text(render(found)) : text(`no section titled ${String(args.title)}`, true);
    }
    case 'search': {
      const word = String(args.word ?? '').toLowerCase();
      const hits = sections.filter((s) => `${s.title}\n${s.text}`.toLowerCase().includes(word));
      return text(hits.length > 0 ? hits.map(render).join('\n\n') : 'no section mentions it');
    }
    default:
      return text(`unknown tool ${params.name}`, true);
  }
});
await server.connect(new StdioServerTransport());
