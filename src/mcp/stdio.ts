/**
 * `presend mcp`: the server on stdin/stdout. stdout carries only the protocol, so every
 * log line goes to stderr; the API key is never logged.
 */
import { once } from 'node:events';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { PresendClient } from '../client/index.js';
import { createPresendMcpServer } from './server.js';

export interface StdioOptions {
  baseUrl: string;
  apiKey: string;
  log?: (line: string) => void;
}

export async function runStdioServer(options: StdioOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`presend mcp: ${line}\n`));
  const client = new PresendClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    userAgent: 'presend-mcp/0.1.0',
    onRetry: (event) => log(`retrying ${event.method} ${event.path} in ${event.delayMs} ms (${event.status ?? 'network error'})`),
  });
  const server = createPresendMcpServer(client);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  log(`serving 4 tools over stdio for ${client.baseUrl}`);
  // The client closing stdin ends the session. Calls still running finish and answer first:
  // the process ends by itself once nothing is pending.
  await Promise.race([closed, once(process.stdin, 'end')]);
}
