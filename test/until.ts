/**
 * The one polling helper of the tests: wait on a condition, never a fixed sleep. `check` runs
 * until it returns something other than null or false, which is returned; after `timeoutMs` the
 * wait fails naming `what` (a function when the message should say how far things got).
 */
export async function until<T>(
  what: string | (() => string),
  check: () => T | null | false | Promise<T | null | false>,
  timeoutMs = 30_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== null && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${typeof what === 'function' ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
