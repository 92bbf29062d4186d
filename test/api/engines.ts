/**
 * Engines for the API tests: the real sandbox engine (docs/design.md §3) in both slots, so live-key
 * billing is exercised without network, with `slow@` shortened. `crash@` addresses make the
 * engine throw — the one behaviour (a bug or outage, 502) the sandbox cannot produce — and
 * `latecrash@` ones throw as late as `slow@` answers (a check told 202 that then fails).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PresendConfig } from '../../src/config.js';
import { createSandboxEngine } from '../../src/core/index.js';
import type { Engine } from '../../src/core/index.js';
import type { Engines } from '../../src/service/engines/engines.js';

export const TEST_SLOW_DELAY_MS = 1500;

function failingOn(prefix: string, engine: Engine): Engine {
  const fails = (a: string) => a.toLowerCase().startsWith(prefix);
  return {
    async verify(address, options) {
      if (fails(address)) throw new Error('engine failure (test)');
      // Fails as late as `slow@` answers: after a short wait the caller has been told 202.
      if (address.toLowerCase().startsWith(`late${prefix}`)) {
        await sleep(TEST_SLOW_DELAY_MS, undefined, options?.signal ? { signal: options.signal } : {}).catch(() => undefined);
        throw new Error('late engine failure (test)');
      }
      return engine.verify(address, options);
    },
    async verifyMany(addresses, onResult, options) {
      if (addresses.some(fails)) throw new Error('engine failure (test)');
      return engine.verifyMany(addresses, onResult, options);
    },
    close: () => engine.close(),
  };
}

export async function testEngines(config: PresendConfig): Promise<Engines> {
  const sandbox = (recheckDelayMs: number) => createSandboxEngine(undefined, { slowDelayMs: TEST_SLOW_DELAY_MS, recheckDelayMs });
  return { live: failingOn('crash', sandbox(config.recheckDelayMs)), sandbox: sandbox(config.sandboxRecheckDelayMs) };
}
