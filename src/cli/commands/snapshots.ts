// `wbsync snapshots`: the list of snapshots with their status, counts and re-verification.

import type { SnapshotInfo } from '../../store/port.js';
import type { Command } from '../command.js';
import { openDb } from '../open.js';

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

export function formatSnapshots(list: SnapshotInfo[]): string {
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
  ]);
  const head = ['id', 'kind', 'status', 'started', 'finished', 'versions written', 're-verified'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [fmt(head), ...rows.map(fmt)].join('\n');
}

export const snapshotsCommand: Command = {
  name: 'snapshots',
  summary: 'list snapshots: id, kind, status, started/finished, counts',
  usage: 'wbsync snapshots',
  description:
    'Lists every snapshot in the database, oldest first, with what each incremental pass re-read in full for the freshness window (freshness.maxStalenessMinutes).',
  examples: ['wbsync snapshots', 'wbsync snapshots --json --db ./data/wbsync.db'],
  flags: [],
  async run(ctx) {
    const store = openDb(ctx, { readonly: true });
    try {
      const list = store.listSnapshots();
      if (ctx.json) ctx.emit({ snapshots: list.map((x) => ({ ...x, reverified: reverifiedOf(x) })) });
      else ctx.say(formatSnapshots(list));
      return 0;
    } finally {
      store.close();
    }
  },
};
