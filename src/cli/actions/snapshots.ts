// `wbsync snapshots`: the list of snapshots with their status, counts and re-verification.
// What it does, loaded only when it runs (its help and flags: ../commands/snapshots.ts).

import { shown } from '../../domain/display-text.js';
import { activeHolds, releaseHold, type Hold } from '../../store/retention/index.js';
import type { SnapshotInfo } from '../../store/port.js';
import { intFlag } from '../flag-values.js';
import type { CommandContext } from '../command.js';
import { openDb } from '../open-db.js';

/** What an incremental pass re-read in full for the freshness window (from its summary). */
export function reverifiedOf(s: SnapshotInfo): { modules: string[]; workspaces: string[]; requests: number } | null {
  const outcomes = Array.isArray(s.summary.workspaces) ? (s.summary.workspaces as Array<Record<string, unknown>>) : [];
  const parts = outcomes.filter((w) => w.reverified && typeof w.reverified === 'object');
  if (!parts.length) return null;
  const out = { modules: [] as string[], workspaces: [] as string[], requests: 0 };
  for (const w of parts) {
    const r = w.reverified as { modules?: unknown; workspace?: unknown; requests?: unknown };
    if (Array.isArray(r.modules)) out.modules.push(...r.modules.map(String));
    if (r.workspace === true) out.workspaces.push(String(w.workspaceId));
    if (typeof r.requests === 'number') out.requests += r.requests;
  }
  return out;
}

export function formatSnapshots(list: SnapshotInfo[], holds: readonly Hold[] = []): string {
  const held = new Map(holds.map((h) => [h.snapshotId, h]));
  if (!list.length) return 'no snapshots yet: run `wbsync sync` first';
  const rows = list.map((s) => [
    String(s.id),
    s.kind,
    s.status,
    s.startedAt,
    s.finishedAt ?? '-',
    Object.entries(s.counts)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k}:${n}`)
      .join(' ') || '-',
    ((r) => (r && (r.modules.length || r.workspaces.length) ? `${r.modules.length} modules${r.workspaces.length ? ` +${r.workspaces.length} ws` : ''}, ${r.requests} req` : '-'))(reverifiedOf(s)),
    ((h) => (h ? `HELD until ${h.expiresAt.slice(0, 10)}: ${shown(h.reason)}` : ''))(held.get(s.id)),
  ]);
  const head = ['id', 'kind', 'status', 'started', 'finished', 'versions written', 're-verified', 'held'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [fmt(head), ...rows.map(fmt)].join('\n');
}

export async function runSnapshotsCommand(ctx: CommandContext): Promise<number> {
  const release = intFlag(ctx.args.flags, 'release', 'snapshots');
  const store = openDb(ctx, { readonly: release === undefined });
  try {
    const now = new Date();
    if (release !== undefined) {
      const h = releaseHold(store.db, release, now);
      if (ctx.json) ctx.emit({ released: release, reason: h.reason });
      else ctx.say(`released snapshot ${release} (held for: ${shown(h.reason)}); prune may forget it now`);
      return 0;
    }
    const list = store.listSnapshots();
    const holds = activeHolds(store.db, now);
    const heldBy = new Map(holds.map((h) => [h.snapshotId, h]));
    if (ctx.json) ctx.emit({ snapshots: list.map((x) => ({ ...x, reverified: reverifiedOf(x), held: heldBy.get(x.id) ?? null })) });
    else ctx.say(formatSnapshots(list, holds));
    return 0;
  } finally {
    store.close();
  }
}
