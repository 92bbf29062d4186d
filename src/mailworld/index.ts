/**
 * The mail world: a simulated internet of DNS and SMTP servers on loopback, for the engine's
 * tests, the benchmarks and `presend mailworld`.
 */
export type {
  DomainSpec,
  ExpectedVerdict,
  HostBehaviour,
  HostDefences,
  MailboxBehaviour,
  MxHostSpec,
  RecordedSession,
  WorldSpec,
} from './spec.js';
export { startMailWorld } from './world.js';
export type { MailWorld, MailWorldOptions } from './world.js';
export { SessionRecorder } from './recorder.js';
export { Truth, isRoleLocalPart } from './truth.js';
export type { TruthOptions } from './truth.js';
export { defaultWorld, BIG_MX_COUNT } from './default-world.js';
export type { DefaultWorld, WorldSample } from './default-world.js';
export { benchWorld } from './bench-world.js';
export type { BenchWorld, BenchWorldOptions } from './bench-world.js';
export { doctorWorld, reverseName, DOCTOR_EGRESS, DOCTOR_CANARY, DOCTOR_SENDER_DOMAIN } from './doctor-world.js';
export { startSocksProxy } from './socks-proxy.js';
export type { SocksProxy, SocksProxyOptions } from './socks-proxy.js';
