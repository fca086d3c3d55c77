// Which snapshots a retention policy keeps — restic's `forget` semantics, pure: snapshots in, a
// verdict per snapshot out (kept, with the rules that keep it, or forgotten). Buckets are calendar
// hours, days, ISO weeks, months and years in UTC; each bucket rule keeps the newest snapshot of
// each of its N newest buckets that hold one; --keep-last N keeps the N newest; --keep-within keeps
// everything taken within DURATION before now. A snapshot kept by any rule is kept.

import { shown } from '../../domain/display-text.js';
import { WbsyncError } from '../../domain/errors.js';

export interface RetentionPolicy {
  keepLast?: number;
  keepHourly?: number;
  keepDaily?: number;
  keepWeekly?: number;
  keepMonthly?: number;
  keepYearly?: number;
  /** restic's duration syntax: 1y2m3d4h (years, months, days, hours), relative to now. */
  keepWithin?: string;
}

export interface SnapshotStamp {
  id: number;
  /** When it was taken (ISO time, UTC). */
  at: string;
}

export interface Verdict {
  id: number;
  keep: boolean;
  /** The rules that keep it, e.g. ['last', 'daily']; empty when forgotten. */
  reasons: string[];
}

const BUCKET_RULES = [
  ['keepHourly', 'hourly', (d: Date) => d.toISOString().slice(0, 13)],
  ['keepDaily', 'daily', (d: Date) => d.toISOString().slice(0, 10)],
  ['keepWeekly', 'weekly', isoWeek],
  ['keepMonthly', 'monthly', (d: Date) => d.toISOString().slice(0, 7)],
  ['keepYearly', 'yearly', (d: Date) => d.toISOString().slice(0, 4)],
] as const;

function isoWeek(d: Date): string {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const day = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - day); // the Thursday of this week decides its year
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((t.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${t.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/** Parses restic's duration (`1y6m`, `30d`, `12h`, `2y3m4d5h`) into its parts; throws a usage error. */
export function parseDuration(text: string): { years: number; months: number; days: number; hours: number } {
  const m = /^(?:(\d+)y)?(?:(\d+)m)?(?:(\d+)d)?(?:(\d+)h)?$/.exec(text.trim());
  if (!m || text.trim() === '') {
    throw new WbsyncError('usage', `not a duration: '${shown(text)}'`, { hint: "write it as restic does: years, months, days, hours — e.g. 30d, 12h, 1y6m, 2m15d" });
  }
  const n = (s: string | undefined): number => (s ? Number(s) : 0);
  return { years: n(m[1]), months: n(m[2]), days: n(m[3]), hours: n(m[4]) };
}

/** The moment DURATION before `now`, calendar-aware for years and months. */
export function durationBefore(now: Date, text: string): Date {
  const d = parseDuration(text);
  const t = new Date(now.getTime());
  t.setUTCFullYear(t.getUTCFullYear() - d.years, t.getUTCMonth() - d.months, t.getUTCDate() - d.days);
  t.setUTCHours(t.getUTCHours() - d.hours);
  return t;
}

/** True when the policy names no rule at all (refused: it would forget everything). */
export function isEmptyPolicy(p: RetentionPolicy): boolean {
  return p.keepLast === undefined && p.keepWithin === undefined && BUCKET_RULES.every(([key]) => p[key] === undefined);
}

/** Checks counts are whole and non-negative and the duration parses; throws a usage error naming the flag. */
export function checkPolicy(p: RetentionPolicy): void {
  for (const key of ['keepLast', ...BUCKET_RULES.map(([k]) => k)] as const) {
    const v = p[key];
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) {
      throw new WbsyncError('usage', `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} wants a whole number ≥ 0 (got ${v})`);
    }
  }
  if (p.keepWithin !== undefined) parseDuration(p.keepWithin);
  if (isEmptyPolicy(p)) {
    throw new WbsyncError('usage', 'an empty retention policy would forget every snapshot', { hint: 'give at least one --keep-* rule, e.g. --keep-daily 7 --keep-weekly 5' });
  }
}

/** The verdict for each snapshot (newest first in the result). */
export function applyPolicy(snapshots: readonly SnapshotStamp[], p: RetentionPolicy, now: Date): Verdict[] {
  const newestFirst = [...snapshots].sort((a, b) => (a.at === b.at ? b.id - a.id : a.at < b.at ? 1 : -1));
  const verdicts = newestFirst.map((s) => ({ id: s.id, keep: false, reasons: [] as string[] }));
  const keep = (i: number, why: string): void => {
    verdicts[i]!.keep = true;
    verdicts[i]!.reasons.push(why);
  };
  newestFirst.forEach((_, i) => {
    if (p.keepLast !== undefined && i < p.keepLast) keep(i, 'last');
  });
  for (const [key, name, bucketOf] of BUCKET_RULES) {
    const n = p[key];
    if (!n) continue;
    let last: string | null = null;
    let kept = 0;
    newestFirst.forEach((s, i) => {
      const b = bucketOf(new Date(s.at));
      if (b !== last && kept < n) {
        keep(i, name);
        kept++;
      }
      last = b;
    });
  }
  if (p.keepWithin !== undefined) {
    const since = durationBefore(now, p.keepWithin).toISOString();
    newestFirst.forEach((s, i) => {
      if (s.at >= since) keep(i, 'within');
    });
  }
  return verdicts;
}
