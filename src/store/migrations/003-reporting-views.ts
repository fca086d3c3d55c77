// The reporting views (public contract: names and columns exactly as in contract.md), showing the
// state as of the latest COMPLETE snapshot L: versions with valid_from <= L < valid_to.
// A running or failed snapshot therefore never hides what an earlier complete snapshot showed.
import type { Migration } from './types.js';

const LATEST = `(SELECT max(id) FROM snapshot_runs WHERE status = 'complete')`;

const VIEWS: Array<[view: string, table: string, columns: string[]]> = [
  ['workspaces', 'workspace_versions', ['id', 'name', 'slug', 'description', 'icon', 'banner', 'created_at', 'updated_at', 'raw']],
  ['members', 'member_versions', ['workspace_id', 'user_id', 'membership_id', 'role', 'status', 'first_name', 'last_name', 'email', 'joined_at', 'raw']],
  ['modules', 'module_versions', ['id', 'workspace_id', 'name', 'description', 'icon', 'color', 'visibility', 'tags', 'created_at', 'updated_at', 'raw']],
  ['collections', 'collection_versions', ['id', 'module_id', 'name', 'color', 'position', 'is_collapsed', 'raw']],
  ['columns', 'column_versions', ['id', 'module_id', 'scope', 'name', 'type', 'position', 'width', 'is_required', 'is_hidden', 'status_options', 'settings', 'raw']],
  ['records', 'record_versions', ['id', 'workspace_id', 'module_id', 'collection_id', 'parent_record_id', 'name', 'position', 'is_completed', 'is_archived', 'sub_record_count', 'amendment_count', 'created_at', 'updated_at', 'raw']],
  ['cells', 'cell_versions', ['id', 'record_id', 'column_id', 'value', 'created_at', 'updated_at', 'raw']],
  ['amendments', 'amendment_versions', ['id', 'workspace_id', 'module_id', 'record_id', 'parent_id', 'user_id', 'message', 'edited', 'is_deleted', 'created_at', 'raw']],
  ['automations', 'automation_versions', ['id', 'workspace_id', 'module_id', 'scope', 'name', 'trigger', 'conditions', 'match', 'actions', 'is_active', 'run_count', 'last_run_at', 'last_error', 'created_at', 'raw']],
  ['activity', 'activity_versions', ['id', 'workspace_id', 'action', 'message', 'target_name', 'module_id', 'collection_id', 'record_id', 'column_id', 'user_id', 'automation_id', 'before', 'after', 'created_at', 'raw']],
  // not in the contract: restore needs who could open what
  ['module_access', 'module_access_versions', ['workspace_id', 'user_id', 'module_id', 'granted', 'open_to_role', 'can_access', 'is_creator', 'raw']],
];

function viewSql([view, table, columns]: (typeof VIEWS)[number]): string {
  const cols = columns.map((c) => `"${c}"`).join(', ');
  return `CREATE VIEW "${view}" AS SELECT ${cols} FROM ${table}
  WHERE valid_from <= ${LATEST} AND (valid_to IS NULL OR valid_to > ${LATEST});`;
}

export const migration003: Migration = {
  version: 3,
  name: 'reporting-views',
  sql: [
    `CREATE VIEW snapshots AS SELECT id, kind, status, started_at, finished_at FROM snapshot_runs;`,
    ...VIEWS.map(viewSql),
  ].join('\n'),
};
