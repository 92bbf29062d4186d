/**
 * A step of a check raced against the check's signal: a check's deadline (or a shutdown) must
 * end it whatever it waits for — a slow DNS server too, whose lookup may take its whole timeout
 * and retries (PRESEND_DNS_TIMEOUT_MS per lookup, several lookups in a row). The step itself is
 * not cancelled: its answer still lands in the caches for the checks after.
 */
export const ABORTED = Symbol('aborted');

export function untilAborted<T>(step: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (!signal) return step;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    step.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
