/**
 * Which served tools can be offered to a model: a provider takes a tool's full name (`tool_prefix` and
 * the server's name) as a function name, and OpenAI refuses every call whose tools hold a name outside
 * `^[a-zA-Z0-9_-]{1,64}$`. One bad name from one server would otherwise fail every turn of every seat
 * that sees it, so such a tool is left out (and said so) instead.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

const functionName = /^[a-zA-Z0-9_-]{1,64}$/;

export function usableTools(prefix: string, tools: readonly Tool[]): { kept: Tool[]; left: string[] } {
  const kept: Tool[] = [];
  const left: string[] = [];
  for (const tool of tools) {
    const name = `${prefix}${tool.name}`;
    if (functionName.test(name)) kept.push(tool);
    else left.push(name);
  }
  return { kept, left };
}
