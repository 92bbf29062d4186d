/**
 * `presend mcp` — the Model Context Protocol tool server over stdio (src/mcp), for agents.
 */
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { clientOptionsFromEnv } from '../../client/index.js';
import { runStdioServer } from '../../mcp/stdio.js';
import { EXIT } from '../output/exit-codes.js';

/** The built command line of this installation (dist/cli/main.js), to register with an MCP host. */
function thisCommandLine(): string {
  const script = process.argv[1] ?? 'dist/cli/main.js';
  return script.endsWith('.ts') ? resolve(dirname(script), '../../dist/cli/main.js') : script;
}

interface McpFlags {
  apiKey?: string;
  baseUrl?: string;
}

export function register(program: Command): void {
  program
    .command('mcp')
    .description('Run the MCP tool server on stdio: verify_email, verify_batch, get_job, get_results.')
    .option('--api-key <key>', 'API key (default: $PRESEND_API_KEY; prefer the variable)')
    .option('--base-url <url>', 'service address (default: $PRESEND_BASE_URL, else http://127.0.0.1:8080)')
    .addHelpText(
      'after',
      `
Example (an MCP client's configuration, e.g. Claude Desktop), running this installation:
  {
    "mcpServers": {
      "presend": {
        "command": "node",
        "args": [${JSON.stringify(thisCommandLine())}, "mcp"],
        "env": { "PRESEND_BASE_URL": "https://presend.example.com", "PRESEND_API_KEY": "ps_live.…" }
      }
    }
  }

Not "npx -y presend mcp": Presend is not on the npm registry, and npx -y would fetch and run
whatever package of that name someone else published, with your key. stdout carries the
protocol; logs go to stderr. See docs/mcp.md.`,
    )
    .action(async (flags: McpFlags) => {
      const settings = clientOptionsFromEnv(process.env, { apiKey: flags.apiKey, baseUrl: flags.baseUrl });
      if (settings.apiKey === null) {
        process.stderr.write('presend mcp: no API key: set PRESEND_API_KEY or pass --api-key\n');
        process.exitCode = EXIT.usage;
        return;
      }
      await runStdioServer({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
    });
}
