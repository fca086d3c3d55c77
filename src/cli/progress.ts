// The progress line: on a terminal only, updated in place on stderr, never under --json.

import type { PassProgress } from '../sync/pass.js';
import { terminalText } from '../domain/display-text.js';
import type { Output } from './command.js';

export type ProgressSnapshot = PassProgress;

export interface ProgressLine {
  update(p: ProgressSnapshot): void;
  /** Any other progress text (restores: writes done of planned). */
  show(text: string, final: boolean): void;
  done(): void;
}

export function formatRestoreProgress(done: number, total: number, elapsedMs: number): string {
  const secs = Math.max(elapsedMs / 1000, 0.001);
  const left = done > 0 && total > done ? ` · ETA ${Math.ceil(((total - done) * secs) / done)}s` : '';
  return `restore: ${done}/${total} writes (${Math.round(done / secs)}/s)${left}`;
}

export function formatProgress(p: ProgressSnapshot): string {
  const secs = Math.max(p.elapsedMs / 1000, 0.001);
  const rate = Math.round(p.records / secs);
  let eta = '';
  if (p.modulesDone > 0 && p.modulesTotal > p.modulesDone) {
    const left = ((p.modulesTotal - p.modulesDone) * secs) / p.modulesDone;
    eta = ` · ETA ${left < 90 ? `${Math.ceil(left)}s` : `${Math.ceil(left / 60)}m`}`;
  }
  return `modules ${p.modulesDone}/${p.modulesTotal} · ${p.records} records (${rate}/s) · ${p.requests} requests · ${p.retries} retries${eta}`;
}

export function createProgressLine(out: Output, enabled: boolean, now: () => number = Date.now): ProgressLine {
  if (!enabled || !out.isTTY) return { update: () => undefined, show: () => undefined, done: () => undefined };
  let last = -Infinity;
  let shown = false;
  const show = (text: string, final: boolean): void => {
    const t = now();
    if (t - last < 100 && !final) return;
    last = t;
    shown = true;
    out.write(`\r\x1b[K${terminalText(text)}`);
  };
  return {
    update: (p) => show(formatProgress(p), p.modulesDone >= p.modulesTotal),
    show,
    done() {
      if (shown) out.write('\r\x1b[K');
    },
  };
}
