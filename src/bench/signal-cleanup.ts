// What a bench section started, stopped when the bench is stopped by a signal: SIGINT or SIGTERM to
// the bench runs every registered step — child processes first (SIGTERM to the process, or to its
// process group when it leads one, then SIGKILL after a grace period), then the tasks (Postgres
// stopped by its pid, …), then the temp folders removed — and exits 130 / 143. A start still in
// flight when the signal comes (initdb, pg_ctl) is waited for, then undone like the rest. The
// section disposes of it when it ends normally (its own `finally` stops what it started).

import { rmSync } from 'node:fs';

export interface SignalCleanup {
  /** A child process to stop on a signal; `group`: it leads its own process group (spawned
   * detached), and the whole group is stopped. Returns the step's removal (once stopped normally). */
  process(pid: number, opts?: { group?: boolean; name?: string }): () => void;
  /** A folder to remove on a signal. */
  dir(path: string): () => void;
  /** Something to undo on a signal (after the processes are stopped). */
  task(name: string, run: () => Promise<void> | void): () => void;
  /** A start in flight: on a signal it is waited for (up to the start timeout), then its undo runs. */
  starting<T>(name: string, start: Promise<T>, undo: (value: T) => Promise<void> | void): Promise<T>;
  /** Runs every step now (what a signal does, without exiting). */
  runAll(): Promise<void>;
  /** Resolves at once, or never once a signal came: a section's loops await it so that they do not
   * take the clean-up's stopped workers for a failure (and exit before the clean-up ends). */
  checkpoint(): Promise<void>;
  /** Removes the signal handlers (the section ended normally). */
  dispose(): void;
}

export interface SignalCleanupOptions {
  graceMs?: number;
  /** How long a start in flight is waited for. */
  startTimeoutMs?: number;
  signals?: NodeJS.Signals[];
  say?(text: string): void;
  /** How the process ends after the clean-up (process.exit by default). */
  exit?(code: number): void;
}

const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

function alive(pid: number, group: boolean): boolean {
  try {
    process.kill(group ? -pid : pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pid: number, group: boolean, sig: NodeJS.Signals): void {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    // already gone
  }
}

/** Stops the processes: SIGTERM to each, SIGKILL to what is left after `graceMs`. */
export async function stopProcesses(list: ReadonlyArray<{ pid: number; group: boolean }>, graceMs: number): Promise<void> {
  for (const p of list) signal(p.pid, p.group, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (list.some((p) => alive(p.pid, p.group)) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  for (const p of list) if (alive(p.pid, p.group)) signal(p.pid, p.group, 'SIGKILL');
  const hard = Date.now() + 5_000;
  while (list.some((p) => alive(p.pid, p.group)) && Date.now() < hard) await new Promise((r) => setTimeout(r, 20));
}

export function signalCleanup(opts: SignalCleanupOptions = {}): SignalCleanup {
  const graceMs = opts.graceMs ?? 10_000;
  const startTimeoutMs = opts.startTimeoutMs ?? 90_000;
  const signals = opts.signals ?? ['SIGINT', 'SIGTERM'];
  const say = opts.say ?? ((t: string) => process.stderr.write(t));
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const procs = new Set<{ pid: number; group: boolean; name: string }>();
  const tasks = new Set<{ name: string; run: () => Promise<void> | void }>();
  const dirs = new Set<string>();
  const pending = new Set<Promise<unknown>>();
  let running: Promise<void> | null = null;

  const runAll = (): Promise<void> =>
    (running ??= (async () => {
      const waitStarts = Promise.allSettled([...pending]);
      await Promise.race([waitStarts, new Promise((r) => setTimeout(r, startTimeoutMs).unref())]);
      await stopProcesses([...procs], graceMs);
      procs.clear();
      for (const t of [...tasks].reverse()) {
        try {
          await t.run();
        } catch (e) {
          say(`bench: clean-up: ${t.name} failed: ${(e as Error).message}\n`);
        }
      }
      tasks.clear();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      dirs.clear();
    })());

  const onSignal = (sig: NodeJS.Signals): void => {
    if (running) return;
    say(`bench: ${sig}: stopping what the section started...\n`);
    void runAll().then(
      () => exit(SIGNAL_EXIT[sig] ?? 1),
      () => exit(SIGNAL_EXIT[sig] ?? 1),
    );
  };
  for (const s of signals) process.on(s, onSignal);

  return {
    process(pid, o = {}) {
      const entry = { pid, group: o.group === true, name: o.name ?? `pid ${pid}` };
      procs.add(entry);
      return () => void procs.delete(entry);
    },
    dir(path) {
      dirs.add(path);
      return () => void dirs.delete(path);
    },
    task(name, run) {
      const entry = { name, run };
      tasks.add(entry);
      return () => void tasks.delete(entry);
    },
    async starting(name, start, undo) {
      pending.add(start);
      try {
        const value = await start;
        tasks.add({ name, run: () => undo(value) });
        return value;
      } finally {
        pending.delete(start);
      }
    },
    runAll,
    checkpoint: () => (running ? new Promise<void>(() => undefined) : Promise.resolve()),
    dispose() {
      for (const s of signals) process.off(s, onSignal);
    },
  };
}
