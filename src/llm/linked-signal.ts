/**
 * Short-lived signals linked to one long-lived signal (the run's), through a single listener on
 * it. Each request, queued task and retry wait used to add its own abort listener to the run's
 * signal, so at 64 calls in flight Node warned (MaxListenersExceededWarning) on every run with
 * concurrency above 10 (issue #16); now the run's signal carries one listener however many
 * calls wait on it. The `openai` client needs it too: it adds an abort listener to the signal of
 * each request it is given and never removes it (openai 6.49, `fetchWithTimeout`).
 *
 * Why not `AbortSignal.any([run, …])` (issue #30 asked): on Node 20 (20.20.2 measured) every
 * signal it makes stays in the long-lived source's dependant set after it is done with, so a run
 * leaks one entry per request, queued task and retry wait: 300,000 signals that each had an abort
 * listener added and removed (what fetch and p-queue do) left 300,000 dependants and heap growing
 * 8.3 → 22.1 MiB after forced GCs, against a flat 3.0–3.2 MiB here (nodejs/node#55351 and #64476;
 * the fixes are in later Node lines). Revisit when the minimum Node version has them.
 */
const children = new WeakMap<AbortSignal, Set<AbortController>>();

function link(parent: AbortSignal): Set<AbortController> {
  let set = children.get(parent);
  if (!set) {
    const linked = new Set<AbortController>();
    parent.addEventListener(
      'abort',
      () => {
        for (const c of linked) c.abort(parent.reason);
        linked.clear();
      },
      { once: true },
    );
    children.set(parent, linked);
    set = linked;
  }
  return set;
}

/**
 * Runs `fn` with a signal that aborts when `parent` does, for exactly the duration of `fn`.
 * Without a parent, `fn` gets none.
 */
export async function withLinkedSignal<T>(
  parent: AbortSignal | undefined,
  fn: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!parent) return fn(undefined);
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return fn(controller.signal);
  }
  const set = link(parent);
  set.add(controller);
  try {
    return await fn(controller.signal);
  } finally {
    set.delete(controller);
  }
}
