-- An uploaded file's import that runs in the background (after its owner picked the address
-- column) is taken over from its stored copy when its process dies: `import_attempts` counts the
-- runs, so a file that brings its process down every time is failed after a few instead of
-- restarting it forever.
ALTER TABLE list_files ADD COLUMN import_attempts INTEGER NOT NULL DEFAULT 0;
