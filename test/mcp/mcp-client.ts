/**
 * Starts `presend mcp` the way an MCP host does — a child process on stdio — and connects
 * the official MCP client to it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI_NODE_ARGS, REPO_ROOT } from '../cli-entry.js';

export interface McpSession {
  client: Client;
  stderr(): string;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connectPresendMcp(env: { PRESEND_BASE_URL: string; PRESEND_API_KEY: string }): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI_NODE_ARGS, 'mcp'],
    cwd: REPO_ROOT,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'presend-test', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
