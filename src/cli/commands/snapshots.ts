// `wbsync snapshots`: the list of snapshots with their status and counts.

import type { SnapshotInfo } from '../../store/port.js';
import type { Command } from '../command.js';
import { openDb } from '../open.js';

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
  ]);
  const head = ['id', 'kind', 'status', 'started', 'finished', 'versions written'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [fmt(head), ...rows.map(fmt)].join('\n');
}

export const snapshotsCommand: Command = {
  name: 'snapshots',
  summary: 'list snapshots: id, kind, status, started/finished, counts',
  usage: 'wbsync snapshots',
  description: 'Lists every snapshot in the database, oldest first.',
  examples: ['wbsync snapshots', 'wbsync snapshots --json --db ./data/wbsync.db'],
  flags: [],
  async run(ctx) {
    const store = openDb(ctx, { readonly: true });
    try {
      const list = store.listSnapshots();
      if (ctx.json) ctx.emit({ snapshots: list });
      else ctx.say(formatSnapshots(list));
      return 0;
    } finally {
      store.close();
    }
  },
};
