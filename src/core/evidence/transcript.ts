/**
 * The conversation of one SMTP session, kept so each address it served can be shown its part:
 * the session's own lines (connect, banner, EHLO, STARTTLS) once, then for each group the lines
 * every recipient shares (RSET, MAIL FROM, the EHLO or QUIT that ends the group, a failure) and
 * that recipient's own RCPT and reply — a pipelined group of 50 addresses gives each its own
 * line, not the 49 others'. The session calls one method per event (smtp/session.ts); the host
 * queue hands each group's lines to its recipients' recorders (attributeGroup).
 *
 * Bounded: the session's own lines stop at MAX_SESSION_LINES, a group keeps what it sent and
 * heard (its size is bounded by the group plan), and each check's recorder has its own caps.
 */
import type { SmtpReply } from '../replies/parse.js';
import type { EvidenceRecorder, RawLine } from './recorder.js';
import { replyText } from './recorder.js';

const MAX_SESSION_LINES = 16;
/** Index of a line every recipient of the group shares. */
const SHARED = -1;

/** A line of a group: a recipient's own (index ≥ 0), or shared by the recipients of one transaction of the group (`transaction`) or of all of it. */
type GroupLine = RawLine & { index: number; transaction?: number };
type Step = { step: string; index: number; transaction?: number };

export class SessionTranscript {
  private readonly own: RawLine[] = [];
  private group: GroupLine[] = [];
  /** When the last command (or pipelined group) was written: a reply's time is counted from it. */
  private lastSentAt = 0;

  constructor(
    readonly host: string,
    private readonly now: () => number,
    /** The address the session is connected to (through a proxy: the one the proxy was asked for). */
    readonly address: string,
  ) {}

  /** Something that happened on the way (connected, TLS up, a failure). */
  event(text: string): void {
    this.push({ at: this.now(), dir: '-', host: this.host, text });
  }

  /** A command of the session's opening (EHLO, HELO, STARTTLS). */
  sent(command: string): void {
    this.lastSentAt = this.now();
    this.push({ at: this.lastSentAt, dir: 'C', host: this.host, text: command.trimEnd() });
  }

  /** A reply of the session's opening (the banner, EHLO's, STARTTLS's). */
  replied(reply: SmtpReply): void {
    const at = this.now();
    this.push({ at, dir: 'S', host: this.host, text: replyText(reply), tookMs: this.lastSentAt ? at - this.lastSentAt : 0 });
  }

  /** A new group (transaction) starts: the last one's lines are dropped. */
  begin(): void {
    this.group = [];
  }

  /** A group's commands as they were written (all at once when pipelined). `rcpt` steps carry their recipient's index. */
  groupSent(steps: readonly Step[], commands: readonly string[]): void {
    const at = this.now();
    this.lastSentAt = at;
    steps.forEach((step, i) => {
      this.group.push({ at, dir: 'C', host: this.host, text: (commands[i] ?? '').trimEnd(), ...placeOf(step) });
    });
  }

  /** A reply of the group, with its place (the recipient's index for a RCPT reply, the transaction for MAIL and RSET). */
  groupReplied(step: Step, reply: SmtpReply, at: number): void {
    this.group.push({ at, dir: 'S', host: this.host, text: replyText(reply), tookMs: Math.max(0, at - this.lastSentAt), ...placeOf(step) });
  }

  /** Something every recipient of the group shares that no line of it says (the message it goes on in). */
  groupEvent(text: string): void {
    this.group.push({ at: this.now(), dir: '-', host: this.host, text, index: SHARED });
  }

  /** The group broke (a timeout, a drop, replies out of step): every recipient sees why. */
  groupFailed(detail: string): void {
    this.group.push({ at: this.now(), dir: '-', host: this.host, text: detail, index: SHARED });
  }

  private push(line: RawLine): void {
    if (this.own.length < MAX_SESSION_LINES) this.own.push(line);
  }

  /** The session's own lines (connect, banner, EHLO, STARTTLS), for a recipient that meets the session. */
  get opening(): readonly RawLine[] {
    return this.own;
  }

  /** The last group's lines bucketed by recipient: built once for a group of many. */
  groupBuckets(count: number): RawLine[][] {
    const buckets: RawLine[][] = Array.from({ length: count }, () => []);
    // A group of several transactions: each recipient sees its own transaction's MAIL and RSET only.
    const transactionOf = new Map<number, number>();
    for (const line of this.group) if (line.index !== SHARED && line.transaction !== undefined) transactionOf.set(line.index, line.transaction);
    for (const line of this.group) {
      if (line.index !== SHARED) {
        buckets[line.index]?.push(line);
        continue;
      }
      buckets.forEach((bucket, i) => {
        if (line.transaction === undefined || line.transaction === (transactionOf.get(i) ?? line.transaction)) bucket.push(line);
      });
    }
    return buckets;
  }
}

/** Where a group's line belongs: a RCPT to its recipient, MAIL and RSET to their transaction, the rest to everyone. */
function placeOf({ step, index, transaction }: Step): { index: number; transaction?: number } {
  const place = { index: step === 'rcpt' ? index : SHARED };
  return transaction === undefined ? place : { ...place, transaction };
}

/**
 * Gives each recipient of the last group its lines: the session's opening the first time its
 * recorder meets this session, then the group's shared lines and its own RCPT. Targets without a
 * recorder (a batch run without explanations) cost nothing beyond this check.
 */
export function attributeGroup(transcript: SessionTranscript, targets: ReadonlyArray<{ evidence?: EvidenceRecorder | undefined }>): void {
  if (!targets.some((t) => t.evidence)) return;
  const buckets = transcript.groupBuckets(targets.length);
  targets.forEach((target, i) => {
    const recorder = target.evidence;
    if (!recorder) return;
    if (recorder.meets(transcript)) {
      recorder.connectedTo(transcript.host, transcript.address);
      for (const line of transcript.opening) recorder.line(line);
    }
    for (const line of buckets[i] ?? []) recorder.line(line);
  });
}

/** A session could not be opened for these recipients (refused, no banner, 554 at the greeting). */
export function noteOpenFailure(targets: ReadonlyArray<{ evidence?: EvidenceRecorder | undefined }>, host: string, detail: string): void {
  for (const target of targets) target.evidence?.note(`${host}: could not open a session (${detail})`);
}
