-- Feedback events are purged by the retention purge once they are older than
-- PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS (docs/feedback.md): found by the time they happened.
CREATE INDEX feedback_events_occurred ON feedback_events(occurred_at);

-- `verification.failed` (docs/webhooks.md): an endpoint that asked to learn how 202'd checks end
-- learns of the ones that fail too. New endpoints choose it themselves; endpoints made before it
-- existed and subscribed to `verification.completed` get it beside it.
UPDATE webhook_endpoints SET events = events || ',verification.failed'
WHERE (',' || events || ',') LIKE '%,verification.completed,%' AND (',' || events || ',') NOT LIKE '%,verification.failed,%';
