/**
 * startMailWorld(spec): the spec made real — one DNS server (UDP and TCP) on 127.0.0.1 and one
 * SMTP server per MX host on its own 127.0.0.x, all on one shared port, with a recorder of
 * every session and the truth of every address.
 */
import type { PublicVerdict } from '../core/types.js';
import type { Acceptor } from './acceptor.js';
import { startDefendedHost } from './defended-host.js';
import { startDnsServer, type DnsServer } from './dns-server.js';
import { startHostileHost } from './hostile-host.js';
import { planHosts, type HostPlacement } from './ip-plan.js';
import { RcptPolicy } from './rcpt-policy.js';
import { SessionRecorder } from './recorder.js';
import { startSmtpHost, type HostContext } from './smtp-host.js';
import type { WorldSpec } from './spec.js';
import { Truth, type TruthOptions } from './truth.js';
import { buildZone } from './zone.js';

export interface MailWorldOptions {
  /** How the truth reads greylisting and slow banners (see truth.ts). */
  truth?: TruthOptions;
  /** HELO name and envelope sender put into env(). */
  heloName?: string;
  mailFrom?: string;
}

export interface MailWorld {
  dns: { host: string; port: number; queries: { udp: number; tcp: number } };
  smtpPort: number;
  recorder: SessionRecorder;
  spec: WorldSpec;
  /** The address the world gave an MX host (also what its A or AAAA record says). */
  hostIp(name: string): string;
  /** Environment for an engine that should live in this world. */
  env(): Record<string, string>;
  expectedVerdict(email: string): PublicVerdict;
  /** Forgets recorded sessions and greylisting history. */
  reset(): void;
  close(): Promise<void>;
}

const PORT_ATTEMPTS = 20;

function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
}

async function startHosts(placements: HostPlacement[], port: number, ctx: HostContext): Promise<{ port: number; acceptors: Acceptor[] }> {
  const acceptors: Acceptor[] = [];
  let shared = port;
  try {
    for (const { host, ip, served } of placements) {
      if (!served) continue;
      const behaviour = host.behaviour ?? { kind: 'normal' };
      const started =
        behaviour.kind === 'normal' && host.defences
          ? await startDefendedHost(host, ip, shared, ctx)
          : behaviour.kind === 'normal' || behaviour.kind === 'refuse'
            ? await startSmtpHost(host, ip, shared, ctx)
            : await startHostileHost(host, behaviour, ip, shared, ctx);
      acceptors.push(started);
      shared = started.port;
    }
    return { port: shared, acceptors };
  } catch (error) {
    await Promise.all(acceptors.map((a) => a.close()));
    throw error;
  }
}

/**
 * Binds every host on one port. With port 0 the first host picks a free one and the others
 * reuse it; if another process holds it on one of the addresses, start over on a new one.
 */
async function startAllHosts(placements: HostPlacement[], port: number, ctx: HostContext): Promise<{ port: number; acceptors: Acceptor[] }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startHosts(placements, port, ctx);
    } catch (error) {
      if (port !== 0 || !isAddressInUse(error) || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

export async function startMailWorld(spec: WorldSpec, options: MailWorldOptions = {}): Promise<MailWorld> {
  const plan = planHosts(spec);
  const hostIps = new Map([...plan].map(([name, p]) => [name, p.ip]));
  const zone = buildZone(spec, hostIps);
  const truth = new Truth(spec.domains, zone, plan.values(), options.truth);
  const recorder = new SessionRecorder();
  const policy = new RcptPolicy(spec.domains);
  const dns: DnsServer = await startDnsServer(zone);
  let hosts: { port: number; acceptors: Acceptor[] };
  try {
    hosts = await startAllHosts([...plan.values()], spec.smtpPort ?? 0, { recorder, policy });
  } catch (error) {
    await dns.close();
    throw error;
  }
  // With no served host at all, still hand out a port that nothing answers on.
  const smtpPort = hosts.port === 0 ? 1 : hosts.port;
  let closed: Promise<void> | null = null;
  return {
    dns: { host: dns.host, port: dns.port, queries: dns.queries },
    smtpPort,
    recorder,
    spec,
    hostIp(name) {
      const placement = plan.get(name.toLowerCase().replace(/\.$/, ''));
      if (!placement) throw new Error(`mail world: no host named ${name}`);
      return placement.ip;
    },
    env() {
      return {
        PRESEND_DNS_SERVERS: `${dns.host}:${dns.port}`,
        PRESEND_SMTP_PORT: String(smtpPort),
        PRESEND_ALLOW_PRIVATE_MX: 'true',
        PRESEND_HELO_NAME: options.heloName ?? 'probe.presend.test',
        PRESEND_MAIL_FROM: options.mailFrom ?? 'probe@presend.test',
      };
    },
    expectedVerdict: (email) => truth.verdict(email),
    reset() {
      recorder.reset();
      policy.resetGreylist();
    },
    close() {
      closed ??= Promise.all([dns.close(), ...hosts.acceptors.map((a) => a.close())]).then(() => undefined);
      return closed;
    },
  };
}
