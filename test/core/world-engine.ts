/**
 * Shared set-up for the engine's integration tests: a mail world on loopback and an engine
 * configured from the world's environment, with short timeouts.
 */
import { loadConfig, type PresendConfig } from '../../src/config.js';
import { createEngine, type EngineDeps } from '../../src/core/verify.js';
import type { EngineTuning } from '../../src/core/engine-config.js';
import type { Engine } from '../../src/core/ports.js';
import { startMailWorld, type MailWorld, type WorldSpec } from '../../src/mailworld/index.js';
import type { MailWorldOptions } from '../../src/mailworld/world.js';

export const TEST_SMTP_TIMEOUT_MS = 600;
export const TEST_DNS_TIMEOUT_MS = 400;

export interface EngineWorld {
  world: MailWorld;
  config: PresendConfig;
  engine: Engine;
  /** A further engine on the same world (closed by close()). */
  another(overrides?: Partial<PresendConfig & EngineTuning>, deps?: EngineDeps): Engine;
  close(): Promise<void>;
}

export async function startEngineWorld(
  spec: WorldSpec,
  overrides: Partial<PresendConfig & EngineTuning> = {},
  options: MailWorldOptions = {},
  deps: EngineDeps = {},
): Promise<EngineWorld> {
  const world = await startMailWorld(spec, { truth: { greylisted: 'first', smtpTimeoutMs: overrides.smtpTimeoutMs ?? TEST_SMTP_TIMEOUT_MS }, ...options });
  const config = loadConfig(
    { ...world.env(), PRESEND_SMTP_TIMEOUT_MS: String(TEST_SMTP_TIMEOUT_MS), PRESEND_DNS_TIMEOUT_MS: String(TEST_DNS_TIMEOUT_MS) },
    overrides,
  );
  const engines: Engine[] = [];
  const another = (more: Partial<PresendConfig & EngineTuning> = {}, moreDeps: EngineDeps = deps): Engine => {
    const engine = createEngine({ ...config, ...overrides, ...more }, moreDeps);
    engines.push(engine);
    return engine;
  };
  const engine = another();
  return {
    world,
    config,
    engine,
    another,
    async close() {
      await Promise.all(engines.map((e) => e.close()));
      await world.close();
    },
  };
}
