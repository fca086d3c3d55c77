// One 'abort' listener per signal, however many requests wait on it. A command's signal (Ctrl-C,
// the daemon's stop) is shared by every request of a pass or a restore; p-queue and the backoff
// sleep each added a listener per waiting request, and past ten Node printed
// "MaxListenersExceededWarning: Possible EventTarget memory leak detected" — on `restore module`
// and `drill`. Subscribers here share the one listener, which is removed with the last of them.

type Fanout = { subscribers: Set<() => void>; listener: () => void };

const fanouts = new WeakMap<AbortSignal, Fanout>();

/** Calls `fn` once when `signal` aborts (now, if it already has). Returns the unsubscribe. */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    fn();
    return () => undefined;
  }
  let f = fanouts.get(signal);
  if (!f) {
    const subscribers = new Set<() => void>();
    const listener = (): void => {
      fanouts.delete(signal);
      for (const s of [...subscribers]) s();
      subscribers.clear();
    };
    f = { subscribers, listener };
    fanouts.set(signal, f);
    signal.addEventListener('abort', listener, { once: true });
  }
  const entry = (): void => fn();
  f.subscribers.add(entry);
  const mine = f;
  return () => {
    if (!mine.subscribers.delete(entry) || mine.subscribers.size > 0) return;
    if (fanouts.get(signal) === mine) fanouts.delete(signal);
    signal.removeEventListener('abort', mine.listener);
  };
}

/** A signal of one's own that follows `signal` (one shared listener on it), and its release. */
export function followSignal(signal: AbortSignal): { signal: AbortSignal; release: () => void } {
  const own = new AbortController();
  const release = onAbort(signal, () => own.abort(signal.reason));
  return { signal: own.signal, release };
}
