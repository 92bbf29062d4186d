/** `presend serve [--host] [--port] [--no-worker]`: the HTTP service, with the embedded worker by default. */
import type { Command } from 'commander';
import { firstOwnerHint } from '../output/first-owner-hint.js';
import { ConfigError, loadCommandConfig } from '../../config.js';
import type { PresendConfig } from '../../config.js';
import { startServeProcess } from '../../processes/serve.js';
import type { RunningServer } from '../../processes/serve.js';
import { createLogger } from '../../logger.js';

interface ServeFlags {
  host?: string;
  port?: string;
  worker: boolean;
  database?: string;
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('Run the Presend HTTP service (the four /v1 routes, /docs, /openapi.json, /healthz, /readyz, /metrics).')
    .option('--host <host>', 'listen address (default PRESEND_HOST or 127.0.0.1)')
    .option('--port <port>', 'listen port (default PRESEND_PORT or 8080)')
    .option('--no-worker', 'do not run the embedded batch worker (run `presend worker` elsewhere)')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .addHelpText('after', '\nExamples:\n  $ presend serve\n  $ presend serve --host 0.0.0.0 --port 8080 --no-worker')
    .action(async (flags: ServeFlags) => {
      let config: PresendConfig;
      try {
        // Flags override the environment and go through the same validation (docs/design.md §2).
        config = loadCommandConfig({ PRESEND_HOST: flags.host || undefined, PRESEND_PORT: flags.port, PRESEND_DATABASE_URL: flags.database || undefined });
      } catch (err) {
        process.stderr.write(`presend serve: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(err instanceof ConfigError ? 2 : 1);
      }
      const logger = createLogger(config.logLevel);
      let server: RunningServer;
      try {
        server = await startServeProcess(config, logger, { worker: flags.worker });
      } catch (err) {
        // e.g. the port is taken or the store cannot be opened: say so in one line.
        process.stderr.write(`presend serve: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      }
      server.app.log.info({ url: server.url, worker: flags.worker, store: server.backend.kind }, 'presend serving');
      const liveOff = server.liveChecksOff;
      if (liveOff !== undefined) {
        server.app.log.warn({ liveChecksOff: liveOff }, 'live checks are off: the engine has no probe identity');
        process.stderr.write(`\n*** ${liveOff} ***\n`);
      }
      // A new install: say how to sign in to the dashboard (the link goes to PRESEND_BASE_URL).
      if (!(await server.backend.users.anyUser().catch(() => true))) {
        process.stderr.write(firstOwnerHint({ databaseUrl: config.databaseUrl, baseUrl: config.baseUrl, serverUrl: server.url }));
      }
      const stop = (signal: string) => {
        server.app.log.info({ signal }, 'shutting down');
        void server.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
}
