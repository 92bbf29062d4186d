/**
 * The target of the API fuzzing: a real `presend serve` child process (its RSS can be read),
 * an account with a live and a sandbox key. The live engine's DNS points at a loopback port
 * where nothing answers, so a well-formed live check ends quickly as a non-verdict and nothing
 * ever leaves the machine.
 */
import { freePort, startLiveService } from '../client/live-service.js';
import type { LiveService } from '../client/live-service.js';
import { openBackend } from '../../src/store/open-backend.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';

export interface FuzzTarget {
  service: LiveService;
  url: string;
  live: string;
  test: string;
  stop(): Promise<void>;
}

export interface AccountKeys {
  accountId: string;
  live: string;
  test: string;
}

/**
 * Accounts and keys written straight into the serve process's store (SQLite in WAL mode takes
 * a second process), as the admin commands do but without a process start per key.
 */
export async function addAccounts(service: LiveService, accounts: Array<{ name: string; credits: number }>): Promise<AccountKeys[]> {
  const url = service.adminEnv.PRESEND_DATABASE_URL;
  if (!url) throw new Error('the live service has no database URL');
  const store = await openBackend(url, { migrate: false });
  try {
    const made: AccountKeys[] = [];
    for (const { name, credits } of accounts) {
      const account = await store.accounts.createAccount({ name, credits, now: new Date() });
      if (!account) throw new Error(`account name taken: ${name}`);
      const live = generateApiKey('live');
      const test = generateApiKey('test');
      for (const k of [live, test]) await store.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: account.id, hash: k.hash, displayPrefix: k.displayPrefix, mode: k.mode, now: new Date() });
      made.push({ accountId: account.id, live: live.key, test: test.key });
    }
    return made;
  } finally {
    await store.close();
  }
}

export async function startFuzzTarget(env: Record<string, string> = {}): Promise<FuzzTarget> {
  const silentDns = await freePort();
  const service = await startLiveService({
    env: {
      PRESEND_DNS_SERVERS: `127.0.0.1:${silentDns}`,
      PRESEND_DNS_TIMEOUT_MS: '200',
      PRESEND_SMTP_TIMEOUT_MS: '500',
      PRESEND_SANDBOX_SLOW_DELAY_MS: '300',
      PRESEND_RATE_LIMIT_PER_SECOND: '1000000',
      PRESEND_RATE_LIMIT_BURST: '1000000',
      PRESEND_LOG_LEVEL: 'warn',
      ...env,
    },
  });
  try {
    const [keys] = await addAccounts(service, [{ name: 'fuzz', credits: 100_000 }]);
    if (!keys) throw new Error('no account made');
    return { service, url: service.baseUrl, live: keys.live, test: keys.test, stop: () => service.stop() };
  } catch (error) {
    await service.stop();
    throw error;
  }
}
