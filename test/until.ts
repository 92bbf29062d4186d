/** Waits on a condition, never a fixed sleep: `check` until it returns something other than null, or fail naming `what` after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | null>, timeoutMs = 30_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
