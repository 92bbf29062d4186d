/**
 * Role: engine state (PostgreSQL). Engine state on PostgreSQL (MX session slots, domain facts): calls made in the same turn of
 * the event loop go to the database together, in one statement. A chunk of a batch warms the
 * sessions and looks up the facts of all its domains at once, and one round trip each would
 * queue on the small engine pool.
 */

/** Calls made in the same turn of the event loop go to `run` together; each gets its own answer. */
export function coalesced<I, O>(run: (inputs: I[]) => Promise<O[]>): (input: I) => Promise<O> {
  let queue: Array<{ input: I; resolve: (out: O) => void; reject: (err: unknown) => void }> = [];
  return (input) =>
    new Promise<O>((resolve, reject) => {
      if (queue.length === 0) {
        setImmediate(() => {
          const batch = queue;
          queue = [];
          run(batch.map((b) => b.input)).then(
            (outs) => batch.forEach((b, i) => b.resolve(outs[i] as O)),
            (err: unknown) => batch.forEach((b) => b.reject(err)),
          );
        });
      }
      queue.push({ input, resolve, reject });
    });
}

