/**
 * What the real-MTA test files share: a bed started before a suite's tests (and the DNS that
 * points the list's domains at it, directly or through the latency relay), the engine run over
 * a list against it, and the checks every server must pass — every verdict right, no limit
 * set off, nothing taken.
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { createEngine } from '../../src/core/index.js';
import type { EngineResult } from '../../src/core/types.js';
import type { MailWorld } from '../../src/mailworld/index.js';
import type { MtaBed } from './bed.js';
import { startLatencyRelay, type LatencyRelay } from './latency-relay.js';
import { listDns, truthOf, type RealMtaList } from './lists.js';

/** The engine (createEngine, as the service runs it) over `addresses`, at the port `port` of the hosts the DNS names. */
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

export function assertVerdicts(list: RealMtaList, results: Map<string, EngineResult>): void {
  assert.equal(results.size, list.addresses.length);
  const wrong = list.addresses.filter((a) => results.get(a)?.envelope.verdict !== truthOf(list, a));
  assert.deepEqual(
    wrong.slice(0, 10).map((a) => `${a}: ${results.get(a)?.envelope.verdict} (${results.get(a)?.envelope.reasons.join(',')}) ≠ ${truthOf(list, a)}`),
    [],
    `${wrong.length} wrong`,
  );
}

/** Nothing was taken: the server holds no message. Call after settle(). */
export function assertNothingTaken(bed: MtaBed): void {
  assert.equal(bed.queuedFiles(), 0, `${bed.name} holds a message`);
}

export interface BedUse<B extends MtaBed> {
  bed(): B;
  /** DNS that points the list's domains at the bed (or at the relay in front of it). */
  world(): MailWorld;
  /** The port the engine must dial: the bed's, or the relay's. */
  port(): number;
  relay(): LatencyRelay | undefined;
}

/**
 * A bed for the suite (started before its tests, stopped after them) and the DNS of `list`.
 * With `oneWayMs`, a latency relay on `relayIp` stands in front of the bed and the DNS points there.
 */
export function useBed<B extends MtaBed>(list: RealMtaList, start: () => Promise<B>, latency?: { relayIp: string; oneWayMs: number }): BedUse<B> {
  let bed: B | undefined;
  let world: MailWorld | undefined;
  let relay: LatencyRelay | undefined;
  before(async () => {
    bed = await start();
    if (latency) relay = await startLatencyRelay({ ip: latency.relayIp, target: { host: bed.ip, port: bed.port }, oneWayMs: latency.oneWayMs });
    world = await listDns(list, relay?.ip ?? bed.ip);
  });
  after(async () => {
    await world?.close();
    await relay?.close();
    await bed?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (!value) throw new Error('the bed did not start');
    return value;
  };
  return { bed: () => started(bed), world: () => started(world), port: () => relay?.port ?? started(bed).port, relay: () => relay };
}

/** The engine over the whole list at the bed (or its relay), then the bed settled: every address its verdict, nothing taken. */
export async function verifyListAtBed(use: BedUse<MtaBed>, list: RealMtaList): Promise<Map<string, EngineResult>> {
  const bed = use.bed();
  const results = await verifyAll(use.world(), use.port(), list.addresses);
  await bed.settle();
  assertVerdicts(list, results);
  assertNothingTaken(bed);
  return results;
}
