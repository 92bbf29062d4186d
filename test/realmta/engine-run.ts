/**
 * Running the engine against a real MTA of the test bed: the DNS of a list pointing at it, one
 * engine per run (as `presend check` and a batch worker make one), every result kept; and the
 * check that each address got the verdict the list says it should.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/core/index.js';
import type { EngineResult } from '../../src/core/types.js';
import type { MailWorld } from '../../src/mailworld/index.js';
import { listDns, truthOf, type RealMtaList } from './lists.js';
import { startPostfix, type PostfixBed } from './postfix-bed.js';

/** Every address through one engine pointed at `port` of the bed (DNS from `world`). */
export async function verifyAll(world: MailWorld, port: number, addresses: readonly string[], env: Record<string, string> = {}): Promise<Map<string, EngineResult>> {
  const engine = createEngine(loadConfig({ ...world.env(), PRESEND_SMTP_PORT: String(port), ...env }));
  const results = new Map<string, EngineResult>();
  try {
    await engine.verifyMany(addresses, (r) => {
      results.set(r.email, r);
    });
  } finally {
    await engine.close();
  }
  return results;
}

/** Each address of `list` has the verdict the list's truth gives it. */
export function assertVerdicts(list: RealMtaList, results: Map<string, EngineResult>): void {
  assert.equal(results.size, list.addresses.length);
  const wrong = list.addresses.filter((a) => results.get(a)?.envelope.verdict !== truthOf(list, a));
  assert.deepEqual(
    wrong.slice(0, 10).map((a) => `${a}: ${results.get(a)?.envelope.verdict} (${results.get(a)?.envelope.reasons.join(',')}) ≠ ${truthOf(list, a)}`),
    [],
    `${wrong.length} wrong`,
  );
}

/**
 * Errors per session as Postfix itself counts them: its `disconnect from …` line ends with
 * `commands=OK/ALL` (Postfix ≥ 3.0), every command that was not OK an error.
 */
export function postfixErrorsPerSession(log: string): number[] {
  return log
    .split('\n')
    .map((line) => / disconnect from .* commands=(\d+)\/(\d+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[2]) - Number(m[1]));
}

/** A Postfix for the suite (started before its tests, stopped after them) and the DNS that points at it. */
export function usePostfix(list: RealMtaList, ip: string, smtpdOptions: string[] = [], mainCf: string[] = []): { bed: () => PostfixBed; world: () => MailWorld } {
  let bed: PostfixBed | undefined;
  let world: MailWorld | undefined;
  before(async () => {
    bed = await startPostfix({ ip, domains: list.domains, recipients: [...list.existing], smtpdOptions, mainCf });
    world = await listDns(list, bed.ip);
  });
  after(async () => {
    await world?.close();
    await bed?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (!value) throw new Error('postfix not started');
    return value;
  };
  return { bed: () => started(bed), world: () => started(world) };
}
