/**
 * Role: what recent live probes got back, for `presend doctor` (issue 22: "how each provider
 * family answered recently"). The engine's own in-process counters die with their process and
 * are per worker; the results in the store are what every worker wrote, so a doctor run as its
 * own process reads these. Reads only, bounded by time and by count, newest first; sandbox
 * work (`ps_test.` keys) never probed anything and is left out.
 */
import type { Db } from '../sql.js';
import type { StoredResult } from '../stored-result.js';

/** One recent live result, as far as the prober's health reads it. */
export interface RecentProbeResult {
  providerFamily: string | null;
  reasons: string[];
}

/** What recent live probes got back (src/store/roles/prober-replies.ts), for `presend doctor`. */
export interface ProberRepliesRole {
  /** Up to `limit` batch items and up to `limit` single checks finished since `since`, newest first. */
  recent(input: { since: Date; limit: number }): Promise<RecentProbeResult[]>;
}

function toRecent(resultJson: string): RecentProbeResult {
  const { envelope } = JSON.parse(resultJson) as StoredResult;
  return { providerFamily: envelope.provider_family, reasons: envelope.reasons };
}

export function proberRepliesRole(db: Db): ProberRepliesRole {
  return {
    async recent({ since, limit }) {
      const items = await db.all<{ result_json: string }>(
        `SELECT i.result_json FROM items i JOIN requests r ON r.id = i.request_id
          WHERE r.sandbox = ? AND r.created_at >= ? AND i.state = 'final' AND i.result_json IS NOT NULL
          ORDER BY i.id DESC LIMIT ?`,
        [false, since, limit],
      );
      const checks = await db.all<{ result_json: string }>(
        // Billable is what tells a live key's check from a sandbox one (src/service/checks/verify-service.ts).
        `SELECT result_json FROM verifications
          WHERE billable = ? AND state = 'completed' AND finished_at >= ? AND result_json IS NOT NULL
          ORDER BY finished_at DESC LIMIT ?`,
        [true, since, limit],
      );
      return [...items, ...checks].map((row) => toRecent(row.result_json));
    },
  };
}
