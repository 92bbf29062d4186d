/**
 * `presend doctor`: is the prober healthy? Checks each egress route (port 25 to a canary mail
 * server, directly or through the proxy; the egress address's PTR, HELO name, SPF and
 * blocklists), the DNS resolver, the probe sender's domain, and how each provider family
 * answered recent live probes (read from the store). Exit 0 healthy, 1 degraded, 2 broken.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { loadCommandConfig, type PresendConfig } from '../../config.js';
import { createLogger } from '../../logger.js';
import { runDoctor, type DoctorDeps } from '../../service/prober-health/doctor.js';
import type { RecentProbeResult } from '../../store/roles/prober-replies.js';
import { openBackend } from '../../store/open-backend.js';
import { renderDoctorReport } from '../output/doctor-report.js';

interface DoctorFlags {
  json?: boolean;
  database?: string;
  history?: boolean;
  canary?: string;
  egressIp?: string;
}

/** Recent results per the store's limit: enough for a share, little to read. */
const HISTORY_LIMIT = 2000;

/**
 * The recent live results, from the store the service writes to. A SQLite file that does not
 * exist yet is not created (the doctor may run before the service ever did): no history then.
 */
function historyReader(config: PresendConfig): DoctorDeps['recentResults'] {
  const path = config.databaseUrl.startsWith('sqlite:') ? config.databaseUrl.slice('sqlite:'.length) : null;
  if (path !== null && (path === ':memory:' || !existsSync(path))) return async () => [];
  return async (since: Date): Promise<RecentProbeResult[]> => {
    const backend = await openBackend(config.databaseUrl, { config, migrate: false, log: createLogger('warn', process.stderr) });
    try {
      return await backend.proberReplies.recent({ since, limit: HISTORY_LIMIT });
    } finally {
      await backend.close();
    }
  };
}

/** The route pauses every worker keeps in a PostgreSQL store; none to read from a SQLite one (they live in the serving process: its /metrics shows them). */
function pausesReader(config: PresendConfig): DoctorDeps['routePauses'] {
  if (!config.databaseUrl.startsWith('postgres')) return undefined;
  return async () => {
    const backend = await openBackend(config.databaseUrl, { config, migrate: false, log: createLogger('warn', process.stderr) });
    try {
      return await backend.engineState.routePauses.list();
    } finally {
      await backend.close();
    }
  };
}

export function register(program: Command): void {
  program
    .command('doctor')
    .description("Check the prober's health: port 25, proxy, egress address (PTR, HELO, SPF, blocklists), DNS, and how providers answered recently.")
    .option('--json', 'print the report as JSON')
    .option('--database <url>', 'store to read recent results from (default PRESEND_DATABASE_URL)')
    .option('--no-history', 'do not read recent results nor the route pauses from the store')
    .option('--canary <host>', 'mail server to test port 25 against (default PRESEND_CANARY_MX, else the MX of PRESEND_MAIL_FROM\'s domain)')
    .option('--egress-ip <ip>', 'the public address probes leave from (default PRESEND_EGRESS_IP, else learned from the canary)')
    .addHelpText(
      'after',
      `
Exit codes: 0 healthy, 1 degraded (probes get out but receivers may refuse them, or something
could not be checked), 2 broken (no probe can get an answer; also a bad setting).

Examples:
  $ presend doctor
  $ presend doctor --json | jq '.checks[] | select(.status != "ok")'
  $ PRESEND_SMTP_PROXY=socks5://user:pass@proxy.example.com:1080 presend doctor

See docs/deploy.md, "Is my prober healthy?".`,
    )
    .action(async (flags: DoctorFlags) => {
      let config: PresendConfig;
      try {
        config = loadCommandConfig({ PRESEND_DATABASE_URL: flags.database, PRESEND_CANARY_MX: flags.canary, PRESEND_EGRESS_IP: flags.egressIp });
      } catch (err) {
        process.stderr.write(`presend doctor: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exitCode = 2;
        return;
      }
      const history = flags.history === false ? undefined : historyReader(config);
      const routePauses = flags.history === false ? undefined : pausesReader(config);
      const report = await runDoctor(config, { ...(history ? { recentResults: history } : {}), ...(routePauses ? { routePauses } : {}) });
      process.stdout.write(flags.json ? JSON.stringify(report, null, 2) + '\n' : renderDoctorReport(report));
      process.exitCode = report.exitCode;
    });
}
