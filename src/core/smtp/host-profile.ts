/**
 * What the engine has learnt about one MX host's defences, and what it assumes before it
 * knows (docs/engine-sessions.md has the sources of each default):
 *
 * - `errorBudget`: the errors (4xx/5xx replies) one session plans to collect, the catch-all
 *   probe counted. Postfix, the most common MTA, slows every reply once a session has made
 *   10 errors (smtpd_soft_error_limit, 1 s each: smtpd_error_sleep_time) and closes it at 20
 *   (smtpd_hard_error_limit, "421 4.7.0 Error: too many errors"); the default budget of 8
 *   stays under the soft limit with a margin for the uncertainty of a pipelined group.
 *   Lowered when the host shows a lower limit: a 421 or a dropped connection after N errors, or
 *   replies slowed after N errors (error sleep) mean the limit is N: the budget becomes N − 2.
 *   A host whose rejections come late one by one (an Exchange-style tarpit) gets a budget of
 *   at most 3, so that no session carries a long row of held-back replies.
 * - `sessions`: sessions at once; lowered by one for each "421 too many connections" that
 *   another of our sessions to the host already explains.
 * - `rcptLimit`: recipients per transaction, learnt from "452 4.5.3 too many recipients".
 * - `transactions`: transactions per session, lowered when a host closes with a 421 that
 *   names commands (Exim smtp_accept_max_nonmail, Postfix smtpd_junk_command_limit).
 * - `strict`: the host once sent replies out of step with the commands: one command at a
 *   time from then on, never pipelined.
 * - `greetings`: HELO/EHLO commands a session may send, or null for no known limit. Every
 *   group that does not end the session ends with an EHLO (session.ts); Sendmail sleeps from
 *   the third greeting of a session (MAXHELOCOMMANDS 3, srvrsmtp.c checksmtpattack): a host
 *   whose banner names Sendmail, or whose repeated EHLO was answered late, gets 2.
 * - `rcpts` / `refusals`: how many recipients were asked here and how many refused, for the
 *   expected share of refusals in the next group (group-plan.ts).
 *
 * Profiles live in memory and in the FactsCache under `smtphost:<mx host>` (plain JSON), so
 * the next batch — or another worker on PostgreSQL — starts from what this one learnt.
 */
import type { FactsCache } from '../ports.js';
import type { RefusalEstimate } from './group-plan.js';
import { FIRST_CONTACT_SESSIONS } from './session-count.js';

export interface HostProfile {
  errorBudget: number;
  /** Errors one transaction may collect; null once the host is known to count errors per session only. */
  transactionErrors: number | null;
  /** Sessions at once the host's MTA allows a client by default (session-count.ts), read from its greeting. */
  sessionCeiling: number;
  /** Recipients one session may carry (per-connection caps: Haraka's limit plugin); null once known unbounded. */
  sessionRcpts: number | null;
  /**
   * The host holds every reply of ours, accepted ones and setup too (a penalised client: Haraka
   * karma once our score is negative): errors cost no more than anything else here, so
   * sessions are made full (up to sessionRcpts), never cut short to dodge a slowdown.
   */
  slowEveryReply: boolean;
  /**
   * The host keeps no count of refused recipients per session (its banner names Exim, which
   * counts them per message — transactionErrors caps each — or OpenSMTPD, which counts none):
   * sessions plan no error budget of their own. Cleared when the host shows a limit per session
   * after all (an error limit, a tarpit).
   */
  noSessionErrors: boolean;
  /**
   * The host answers QUIT late (Exim corks its 221: up to 200 ms): a group that ends the
   * session ends with EHLO instead, and QUIT follows, its reply awaited beside other work.
   */
  slowQuit: boolean;
  sessions: number;
  rcptLimit: number;
  transactions: number;
  greetings: number | null;
  strict: boolean;
  tarpit: boolean;
  rcpts: number;
  refusals: number;
}

export interface HostDefaults {
  errorBudget: number;
  /** Recipients per session at first contact (FIRST_CONTACT_SESSION_RCPTS); null: unbounded. */
  sessionRcpts: number | null;
  /** Errors per transaction at first contact (FIRST_CONTACT_TRANSACTION_ERRORS); null: per session only. */
  transactionErrors: number | null;
  sessions: number;
  rcptLimit: number;
  transactions: number;
}

/**
 * Errors one transaction plans at first contact: Exim setups commonly delay each unknown
 * recipient from the 4th of a message (`delay` in acl_smtp_rcpt, growing with $rcpt_fail_count;
 * Exim spec ch. 42, "ACL modifiers"). Lifted for a host whose banner names an MTA that counts
 * errors per session (server-family.ts), or that took more refusals in a message unslowed.
 */
export const FIRST_CONTACT_TRANSACTION_ERRORS = 3;
/**
 * Recipients one session carries at first contact: per-connection recipient caps exist (Haraka's
 * limit plugin, `[recipients] max`, commonly 20). Lifted for a banner whose MTA counts
 * recipients per message only (server-family.ts); not raised by trying more — that is how a cap
 * is set off — only lowered where a host refuses for it.
 */
export const FIRST_CONTACT_SESSION_RCPTS = 20;
/** A slowdown from this many errors or fewer is no error limit (Postfix's is 10) but a penalised client. */
export const PENALISED_FROM_ERRORS = 2;
/** Recipients of a host's own that must have been answered before its refusal share counts as known (group-plan.ts). */
const KNOWN_SAMPLE = 20;
/** Budget left for a tarpitting host: a few held-back rejections per session at most. */
export const TARPIT_ERROR_BUDGET = 3;
/** Share of refusals assumed before any reply was seen (a list with a quarter unknown is common). */
const PRIOR_REFUSAL_RATE = 0.25;
/** Weight of the prior, in recipients. */
const PRIOR_WEIGHT = 8;
/** Recipients a host's own refusal share must rest on before it may plan below the share seen everywhere. */
const TRUSTED_SAMPLE = 100;
/** Counts are halved past this, so the estimate follows a list whose mix changes. */
const STATS_WINDOW = 400;
const MAX_PROFILES = 10_000;

const cacheKey = (host: string): string => `smtphost:${host}`;

function decayed(counts: { rcpts: number; refusals: number }): void {
  while (counts.rcpts > STATS_WINDOW) {
    counts.rcpts /= 2;
    counts.refusals /= 2;
  }
}

export class HostLearning {
  private readonly profiles = new Map<string, HostProfile>();
  private readonly loading = new Map<string, Promise<HostProfile>>();
  /** Every host together: the prior of a host not asked yet (the share of unknown addresses is mostly the list's). */
  private readonly all = { rcpts: 0, refusals: 0 };

  constructor(
    private readonly cache: FactsCache,
    readonly defaults: HostDefaults,
    private readonly ttlMs: number,
  ) {}

  private fresh(): HostProfile {
    return { ...this.defaults, sessionCeiling: FIRST_CONTACT_SESSIONS, slowEveryReply: false, noSessionErrors: false, slowQuit: false, greetings: null, strict: false, tarpit: false, rcpts: 0, refusals: 0 };
  }

  /** The profile as known now (defaults until load() has answered). */
  profile(host: string): HostProfile {
    let profile = this.profiles.get(host);
    if (!profile) {
      profile = this.fresh();
      this.keep(host, profile);
    }
    return profile;
  }

  private keep(host: string, profile: HostProfile): void {
    this.profiles.set(host, profile);
    if (this.profiles.size > MAX_PROFILES) {
      const oldest = this.profiles.keys().next();
      if (!oldest.done) this.profiles.delete(oldest.value);
    }
  }

  /** Reads what an earlier batch (or another worker) learnt about `host`, once. */
  load(host: string): Promise<HostProfile> {
    let loading = this.loading.get(host);
    if (!loading) {
      loading = this.cache.get<Partial<HostProfile>>(cacheKey(host)).then(
        (stored) => {
          const profile = this.profile(host);
          if (stored && typeof stored === 'object') {
            // Never above this engine's own limits: configuration may have been lowered since.
            const n = (v: unknown, fallback: number, max: number): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.min(v, max) : fallback);
            profile.errorBudget = n(stored.errorBudget, profile.errorBudget, this.defaults.errorBudget);
            profile.sessions = Math.max(1, n(stored.sessions, profile.sessions, this.defaults.sessions));
            profile.rcptLimit = Math.max(1, n(stored.rcptLimit, profile.rcptLimit, this.defaults.rcptLimit));
            profile.transactions = Math.max(1, n(stored.transactions, profile.transactions, this.defaults.transactions));
            profile.greetings = typeof stored.greetings === 'number' && stored.greetings >= 1 ? stored.greetings : null;
            profile.slowEveryReply = stored.slowEveryReply === true;
            profile.noSessionErrors = stored.noSessionErrors === true;
            profile.slowQuit = stored.slowQuit === true;
            profile.sessionCeiling = Math.max(1, n(stored.sessionCeiling, FIRST_CONTACT_SESSIONS, this.defaults.sessions));
            if (stored.sessionRcpts === null) profile.sessionRcpts = null;
            else if (typeof stored.sessionRcpts === 'number' && stored.sessionRcpts >= 1) profile.sessionRcpts = stored.sessionRcpts;
            if (stored.transactionErrors === null) profile.transactionErrors = null;
            else if (typeof stored.transactionErrors === 'number' && stored.transactionErrors >= 1) profile.transactionErrors = Math.min(stored.transactionErrors, profile.errorBudget + 1);
            profile.strict = stored.strict === true;
            profile.tarpit = stored.tarpit === true;
            profile.rcpts = n(stored.rcpts, 0, STATS_WINDOW);
            profile.refusals = Math.min(profile.rcpts, n(stored.refusals, 0, STATS_WINDOW));
          }
          return profile;
        },
        () => this.profile(host),
      );
      this.loading.set(host, loading);
      if (this.loading.size > MAX_PROFILES) this.loading.clear();
    }
    return loading;
  }

  /** Writes the profile for the next batch; a cache that cannot take it loses nothing but the lesson. */
  save(host: string): Promise<void> {
    return this.cache.set(cacheKey(host), { ...this.profile(host) }, this.ttlMs).catch(() => undefined);
  }

  /** `asked` recipients were answered at `host`, `refused` of them with a 4xx/5xx. */
  record(host: string, asked: number, refused: number): void {
    const profile = this.profile(host);
    profile.rcpts += asked;
    profile.refusals += refused;
    decayed(profile);
    this.all.rcpts += asked;
    this.all.refusals += refused;
    decayed(this.all);
  }

  /**
   * Expected share of refusals of the next recipients at `host`, and how much it rests on. Until
   * a host's own share rests on `TRUSTED_SAMPLE` recipients, it is not taken below the share seen
   * everywhere: a host's first replies can be luckier than its list (a few dozen recipients at a
   * quarter refused often show a tenth), and a group sized on that luck overshoots the budget.
   */
  refusals(host: string): RefusalEstimate {
    const profile = this.profile(host);
    const everywhere = (this.all.refusals + PRIOR_REFUSAL_RATE * PRIOR_WEIGHT) / (this.all.rcpts + PRIOR_WEIGHT);
    const own = (profile.refusals + everywhere * PRIOR_WEIGHT) / (profile.rcpts + PRIOR_WEIGHT);
    return { rate: profile.rcpts < TRUSTED_SAMPLE ? Math.max(own, everywhere) : own, weight: profile.rcpts + PRIOR_WEIGHT, known: profile.rcpts >= KNOWN_SAMPLE };
  }

  /**
   * Every reply slowed once the session had made `errors` errors. So few that no MTA's error
   * limit explains it (Postfix's is 10): the client is penalised (karma), every reply will be
   * slow in any session; otherwise it is the host's error limit.
   */
  slowdownSeen(host: string, errors: number): boolean {
    return errors <= PENALISED_FROM_ERRORS ? this.everyReplySlow(host) : this.limitSeen(host, errors);
  }

  /** The host holds every reply of ours, whatever it answers (a penalised client). */
  everyReplySlow(host: string): boolean {
    return this.flag(host, 'slowEveryReply', true);
  }

  /** Sets one of the profile's yes/no lessons; true when that changed it. */
  private flag(host: string, lesson: 'slowEveryReply' | 'slowQuit' | 'noSessionErrors', value: boolean): boolean {
    const profile = this.profile(host);
    if (profile[lesson] === value) return false;
    profile[lesson] = value;
    return true;
  }

  /** The greeting named the host's MTA, whose default per-client connection limit leaves room for `ceiling` sessions. */
  sessionCeilingKnown(host: string, ceiling: number): boolean {
    const profile = this.profile(host);
    if (profile.sessionCeiling === ceiling) return false;
    profile.sessionCeiling = ceiling;
    return true;
  }

  /** The host counts recipients per message only: no cap on a session's recipients. */
  sessionRcptsLifted(host: string): boolean {
    const profile = this.profile(host);
    if (profile.sessionRcpts === null) return false;
    profile.sessionRcpts = null;
    return true;
  }

  /** The host refused the recipient after `carried` of them in one session: that is its cap. */
  sessionRcptsLimited(host: string, carried: number): boolean {
    const profile = this.profile(host);
    const most = Math.max(1, carried);
    if (profile.sessionRcpts !== null && profile.sessionRcpts <= most) return false;
    profile.sessionRcpts = most;
    return true;
  }

  /** The host showed its error limit: `limit` errors made it slow down, close, or drop us. */
  limitSeen(host: string, limit: number): boolean {
    const profile = this.profile(host);
    const budget = Math.max(0, limit - 2);
    const perSession = this.errorsPerSession(host);
    if (budget >= profile.errorBudget) return perSession;
    profile.errorBudget = budget;
    return true;
  }

  /** The host's 221 came well after its QUIT was read. */
  quitSlow(host: string): boolean {
    return this.flag(host, 'slowQuit', true);
  }

  /** The host keeps no count of refused recipients per session (its banner names such an MTA): sessions plan no error budget of their own. */
  noSessionErrorCount(host: string): boolean {
    return this.flag(host, 'noSessionErrors', true);
  }

  /** The host showed a limit per session after all: the session budget applies again. */
  private errorsPerSession(host: string): boolean {
    return this.flag(host, 'noSessionErrors', false);
  }

  /**
   * The host counts errors per session, not per message (its banner names such an MTA, or a
   * transaction of it took more refusals than the first-contact cap, none of them slowed): the
   * cap on errors per transaction is lifted — learnt upwards, never by setting a limit off.
   */
  transactionErrorsLifted(host: string): boolean {
    const profile = this.profile(host);
    if (profile.transactionErrors === null) return false;
    profile.transactionErrors = null;
    return true;
  }

  /** The host slows (or, by its banner, will slow) greetings past `most` in a session. */
  greetingsLimited(host: string, most: number): boolean {
    const profile = this.profile(host);
    const limit = Math.max(1, most);
    if (profile.greetings !== null && profile.greetings <= limit) return false;
    profile.greetings = limit;
    return true;
  }

  /** Rejections came late, one by one. */
  tarpitSeen(host: string): boolean {
    const profile = this.profile(host);
    const perSession = this.errorsPerSession(host);
    const changed = perSession || !profile.tarpit || profile.errorBudget > TARPIT_ERROR_BUDGET;
    profile.tarpit = true;
    profile.errorBudget = Math.min(profile.errorBudget, TARPIT_ERROR_BUDGET);
    return changed;
  }
}
