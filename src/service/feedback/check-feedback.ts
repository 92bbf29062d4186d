/**
 * The account's send feedback applied to its checks (docs/feedback.md): read from the store before
 * the engine runs, handed to the engine's pure rules (src/core/feedback-verdict.ts) as data. A
 * check whose address hard-bounced inside the window is answered without a probe; every other
 * result has the feedback applied (a catch-all resolved by a delivery, a complaint's suppression)
 * and carries the feedback part of its `history` (the store adds the earlier checks).
 */
import { answerFromFeedback, applyFeedback, DEFAULT_FEEDBACK_WINDOW_DAYS, feedbackHistory } from '../../core/feedback-verdict.js';
import type { AddressFeedback, EngineResult } from '../../core/types.js';
import type { FeedbackRole } from '../../store/roles/feedback/feedback.js';
import { feedbackKey } from '../../store/roles/feedback/feedback-records.js';

export interface CheckKey {
  accountId: string;
  email: string;
}

/** The feedback of a set of checks, read once. */
export interface FeedbackView {
  /** The answer without a probe (a hard bounce that counts), or null: the address is probed. */
  answer(key: CheckKey): EngineResult | null;
  /** A result (probed, or the answer above) with the feedback applied and its history's feedback part. */
  apply(key: CheckKey, result: EngineResult): EngineResult;
}

/** No feedback role (an engine used on its own): results pass as they are. */
export const NO_FEEDBACK_VIEW: FeedbackView = { answer: () => null, apply: (_key, result) => result };

export async function readFeedback(role: FeedbackRole | undefined, keys: readonly CheckKey[], now: Date): Promise<FeedbackView> {
  if (!role || keys.length === 0) return NO_FEEDBACK_VIEW;
  const found = await role.lookup(keys);
  if (found.feedback.size === 0) return NO_FEEDBACK_VIEW;
  const feedbackOf = (key: CheckKey): AddressFeedback | null => found.feedback.get(feedbackKey(key.accountId, key.email)) ?? null;
  const policyOf = (key: CheckKey) => ({ now, windowDays: found.windowDays.get(key.accountId) ?? DEFAULT_FEEDBACK_WINDOW_DAYS });
  return {
    answer: (key) => answerFromFeedback(key.email, feedbackOf(key), policyOf(key)),
    apply(key, result) {
      const feedback = feedbackOf(key);
      if (feedback === null) return result;
      const applied = applyFeedback(result, feedback, policyOf(key));
      return { ...applied, envelope: { ...applied.envelope, history: feedbackHistory(feedback) } };
    },
  };
}
