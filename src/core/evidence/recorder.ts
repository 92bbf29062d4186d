/**
 * The recorder one check writes its evidence into (evidence.ts), bounded by EVIDENCE_LIMITS. It
 * is the port the SMTP layers see: a probe target carries it (smtp/put-back.ts ProbeTarget), the
 * session's transcript hands it the lines that concern its address (transcript.ts), and the
 * engine adds the DNS facts, the catch-all probe and the outcome. The engine creates one per
 * check only when asked (VerifyOptions.explain).
 */
import type { MailHosts } from '../dns/mail-hosts.js';
import type { SmtpReply } from '../replies/parse.js';
import type { EngineResult } from '../types.js';
import { EVIDENCE_LIMITS, type Evidence, type EvidenceCatchAll, type EvidenceFact, type EvidenceLine, type EvidenceMxHost } from './evidence.js';
import { factOf, type Stamped } from './stamped-fact.js';

/** A line as the transcript keeps it: on the engine's clock (epoch ms). */
export interface RawLine {
  at: number;
  dir: EvidenceLine['dir'];
  host: string;
  text: string;
  tookMs?: number;
}

/** What the SMTP layers may tell a check: lines of its conversation and sentences about its way. */
export interface EvidenceRecorder {
  /** True the first time this check meets `session`: its shared lines are due then. */
  meets(session: object): boolean;
  /** A session of `host` at `address` served this check. */
  connectedTo(host: string, address: string): void;
  line(line: RawLine): void;
  note(text: string): void;
}

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** A reply in one line of text, as the server wrote its first line (multi-line replies: the first line and a count). */
export function replyText(reply: SmtpReply): string {
  const first = `${reply.code} ${reply.lines[0] ?? ''}`.trimEnd();
  return reply.lines.length > 1 ? `${first} (+${reply.lines.length - 1} lines)` : first;
}

export const shortReply = (reply: SmtpReply): { code: number; text: string } => ({ code: reply.code, text: clip(reply.text, EVIDENCE_LIMITS.maxLineChars) });

export class CheckEvidence implements EvidenceRecorder {
  private readonly startedAt: number;
  private readonly lines: EvidenceLine[] = [];
  private chars = 0;
  private dropped = 0;
  private readonly notes: string[] = [];
  private readonly facts: EvidenceFact[] = [];
  private mxHosts: EvidenceMxHost[] | null = null;
  private catchAll: EvidenceCatchAll | null = null;
  private decidedBy: Evidence['decidedBy'] = null;
  private outcome: string | null = null;
  private readonly seen = new WeakSet<object>();
  /** The address each MX host was reached at. */
  private readonly reached = new Map<string, string>();

  constructor(
    private readonly now: () => number,
    readonly email: string,
  ) {
    this.startedAt = now();
  }

  get started(): number {
    return this.startedAt;
  }

  meets(session: object): boolean {
    if (this.seen.has(session)) return false;
    this.seen.add(session);
    return true;
  }

  connectedTo(host: string, address: string): void {
    if (!this.reached.has(host)) this.reached.set(host, address);
  }

  line(raw: RawLine): void {
    const text = clip(raw.text, EVIDENCE_LIMITS.maxLineChars);
    if (this.lines.length >= EVIDENCE_LIMITS.maxLines || this.chars + text.length > EVIDENCE_LIMITS.maxChars) {
      this.dropped++;
      return;
    }
    this.chars += text.length;
    const line: EvidenceLine = { atMs: raw.at - this.startedAt, dir: raw.dir, host: raw.host, text };
    if (raw.tookMs !== undefined) line.tookMs = raw.tookMs;
    this.lines.push(line);
  }

  note(text: string): void {
    if (this.notes.length < EVIDENCE_LIMITS.maxNotes) this.notes.push(clip(text, EVIDENCE_LIMITS.maxLineChars));
  }

  /** The domain's MX answer (the value the engine's cache holds, stamped when it was looked up). */
  mailHosts(domain: string, hosts: Stamped<MailHosts>): void {
    this.fact(factOf(`mx:${domain}`, hosts, this.startedAt, hosts.kind === 'hosts' ? `${hosts.hosts.length} MX host(s)${hosts.implicit ? ' (implicit: the A record)' : ''}` : hosts.kind));
    if (hosts.kind === 'hosts') this.mxHosts = hosts.hosts.slice(0, 10).map((h) => ({ name: h.name, preference: h.preference }));
  }

  fact(fact: EvidenceFact): void {
    if (this.facts.length < EVIDENCE_LIMITS.maxNotes) this.facts.push(fact);
  }

  catchAllSeen(catchAll: EvidenceCatchAll): void {
    this.catchAll = catchAll;
  }

  /** The probe's outcome (worded by evidence-book.ts): the reply that decided, with the reply-table row that read it, or what ended it. */
  concluded(decidedBy: Evidence['decidedBy'], outcome: string): void {
    this.decidedBy = decidedBy;
    this.outcome = outcome;
  }

  /** The evidence, once the result is known. */
  finish(result: EngineResult): Evidence {
    const finishedAt = this.now();
    return {
      version: 1,
      startedAt: new Date(this.startedAt).toISOString(),
      finishedAt: new Date(finishedAt).toISOString(),
      durationMs: finishedAt - this.startedAt,
      email: this.email,
      mxHosts: this.mxHosts?.map((h) => {
        const address = this.reached.get(h.name);
        return address ? { ...h, address } : h;
      }) ?? null,
      facts: this.facts,
      transcript: this.lines,
      dropped: this.dropped,
      catchAll: this.catchAll,
      decidedBy: this.decidedBy,
      outcome: this.outcome ?? `decided without an SMTP probe: ${result.envelope.reasons.join(', ') || 'no reason'}`,
      notes: this.notes,
    };
  }
}
