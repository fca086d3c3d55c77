// A restore drill's scratch service forgets the content of modules it has been read back from:
// their records, values, notes, feed rows and notifications leave memory, so the scratch holds a
// few modules at a time however large the workspace. The modules themselves (their collections,
// columns, recipes and grants) stay, so whatever names them — relations, the workspace's recipes,
// the module list — still resolves. Never used on a service anyone reads afterwards: a module
// forgotten this way answers as if emptied, with no trace in its feed.

import type { EmulatorState } from './state.js';

export function forgetModuleContent(s: EmulatorState, moduleIds: readonly string[]): void {
  const gone = new Set(moduleIds);
  if (!gone.size) return;
  for (const [id, v] of s.values) {
    if (!gone.has(v.module)) continue;
    s.values.delete(id);
    s.valuesByColumn.remove(v.column, id);
  }
  for (const [id, a] of s.amendments) {
    if (!gone.has(a.module)) continue;
    s.amendments.delete(id);
    s.amendmentsByRecord.remove(a.record, id);
  }
  for (const [id, r] of s.records) {
    if (!gone.has(r.module)) continue;
    s.unindexRecord(r);
    s.records.delete(id);
    s.valuesByRecord.delete(id);
  }
  for (const [id, n] of s.notifications) {
    if (n.module === null || !gone.has(n.module)) continue;
    s.notifications.delete(id);
    s.notificationsByUser.remove(n.user, id);
  }
  const touched = new Set<string>();
  for (const [id, a] of s.activity) {
    if (!a.module || !gone.has(a.module._id) || !a.record) continue;
    s.activity.delete(id);
    touched.add(a.workspace);
  }
  for (const ws of touched) {
    const rows = s.activityByWorkspace.get(ws);
    if (rows) s.activityByWorkspace.set(ws, rows.filter((a) => s.activity.has(a._id)));
  }
}
