/**
 * The Presend MCP server: exactly four tools (docs/interface-spec.md §1), each a thin adapter
 * over PresendClient so the tools retry, authenticate and fail like the SDK and the CLI.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { PresendClient } from '../client/index.js';
import { registerGetJob } from './tools/get-job.js';
import { registerGetResults } from './tools/get-results.js';
import { registerVerifyBatch } from './tools/verify-batch.js';
import { registerVerifyEmail } from './tools/verify-email.js';

export const MCP_TOOL_NAMES = ['verify_email', 'verify_batch', 'get_job', 'get_results'] as const;

export function createPresendMcpServer(client: PresendClient, version = '0.1.0'): McpServer {
  const server = new McpServer(
    { name: 'presend', version },
    {
      instructions:
        'Presend checks whether email addresses are deliverable before you send. verify_email for one address, verify_batch for many (gated by max_credits), then get_job to poll and get_results to page. A null decision is never permission to send; never resubmit a pending check as a new one.',
    },
  );
  registerVerifyEmail(server, client);
  registerVerifyBatch(server, client);
  registerGetJob(server, client);
  registerGetResults(server, client);
  return server;
}
