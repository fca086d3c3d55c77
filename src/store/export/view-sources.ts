// Every reporting view and the versioned table behind it, so a view can be read "as of snapshot N"
// (the plain-file export) with the columns the view shows. A test holds this list to the
// views the migrations create: a new view without an entry here fails it.

export interface ViewSource {
  view: string;
  /** the versioned table the view reads; null for `snapshots` */
  table: string | null;
}

/** In the order an export writes them. Columns come from the view itself (PRAGMA table_info). */
export const VIEW_SOURCES: readonly ViewSource[] = [
  { view: 'snapshots', table: null },
  { view: 'workspaces', table: 'workspace_versions' },
  { view: 'members', table: 'member_versions' },
  { view: 'modules', table: 'module_versions' },
  { view: 'collections', table: 'collection_versions' },
  { view: 'columns', table: 'column_versions' },
  { view: 'records', table: 'record_versions' },
  { view: 'cells', table: 'cell_versions' },
  { view: 'amendments', table: 'amendment_versions' },
  { view: 'automations', table: 'automation_versions' },
  { view: 'activity', table: 'activity_versions' },
  { view: 'module_access', table: 'module_access_versions' },
  { view: 'resolved_references', table: 'reference_versions' },
];

/**
 * The view's rows as of complete snapshot N (named parameter @n), in storage order. For
 * `snapshots`, what an `export --snapshot N` copy shows: the snapshots up to N, a pass that was
 * still running as failed.
 */
export function viewAsOfSql(v: ViewSource, columns: readonly string[]): string {
  const cols = columns.map((c) => `"${c}"`);
  if (v.table === null) {
    // the export copy's own: ids up to N; what was running then is, there, interrupted
    return `SELECT id, kind, CASE status WHEN 'running' THEN 'failed' ELSE status END AS status, started_at, finished_at
      FROM snapshot_runs WHERE id <= @n ORDER BY id`;
  }
  return `SELECT ${cols.join(', ')} FROM ${v.table} WHERE valid_from <= @n AND (valid_to IS NULL OR valid_to > @n)`;
}
