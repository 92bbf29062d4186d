-- A single check left running by a process that died is resumed only when a caller was told it
-- goes on (a 202): `resumable`. One whose caller was still waiting got an error or nothing, so it
-- is failed and its hold released, never run and debited later (issue 12, finding 5). Checks
-- written before this migration keep being resumed, as they were.
ALTER TABLE verifications ADD COLUMN resumable INTEGER NOT NULL DEFAULT 1;
-- /readyz writes this one row: a store that answers reads but cannot write is not ready.
CREATE TABLE ready_probe (
  id INTEGER PRIMARY KEY,
  probed_at TEXT NOT NULL
);
