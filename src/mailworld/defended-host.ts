/**
 * An MX host with the defences of a real server (spec.ts HostDefences, defences.ts): the
 * mini-SMTP dialogue with a HostGuard consulted at connect and a SessionGuard at every
 * command, replies held back in order as the defences say, and `commandLatencyMs` before each
 * reply like a network round trip. No early-talker pause unless `greetDelayMs` asks for one:
 * Postfix and Exchange greet at once.
 */
import { startAcceptor, type Acceptor } from './acceptor.js';
import { HostGuard } from './defences.js';
import { ReplyScheduler, runDialogue } from './mini-smtp.js';
import type { HostContext } from './smtp-host.js';
import type { MxHostSpec } from './spec.js';

export function startDefendedHost(host: MxHostSpec, ip: string, port: number, ctx: HostContext): Promise<Acceptor & { port: number }> {
  const guard = new HostGuard(host, host.defences ?? {});
  const name = host.greeting ?? host.name;
  return startAcceptor(host, ip, port, ctx.recorder, (socket, log) => {
    const client = socket.remoteAddress ?? '127.0.0.1';
    const scheduler = new ReplyScheduler(socket, log, host.commandLatencyMs ?? 0);
    const refused = guard.admit(client, log);
    if (refused) {
      scheduler.send(refused);
      scheduler.end();
      return;
    }
    const session = guard.session(client, log);
    socket.once('end', () => session.end());
    socket.once('close', () => session.end());
    if (host.defences?.unsolicited === 'before_banner') {
      log.hit('unsolicited');
      scheduler.sendUnsolicited(`250 ${name} says hello before its greeting`);
    }
    scheduler.send(`220 ${name} ESMTP`, host.greetDelayMs ?? 0);
    runDialogue(socket, log, { host, policy: ctx.policy, recorder: ctx.recorder, guard: session, scheduler });
  });
}
