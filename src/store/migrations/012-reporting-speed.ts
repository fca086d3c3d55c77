// Reporting at scale. The views of 003/006 read "as of the latest complete snapshot L" with
// `valid_to IS NULL OR valid_to > L`, which no index can range over, and the tables had no index
// for what reports join on, so a README query scanned every version of a column's cells per record
// (seconds on the large seed). Here:
//   - the views say the same thing as `coalesce(valid_to, <max int>) > L`, and each table joined
//     by key has an index on (key, that expression, valid_from) in place of (key, valid_from): a
//     lookup "id as of L" is one seek however long the history, in SQLite 3.9+ (the Debian CLI
//     included);
//   - covering indexes for what reports filter and join on (records by parent/archived/completed,
//     cells by record and column or by column and value, columns by module and type, activity by
//     time), each replacing the narrower index it starts with.
// View names and columns are unchanged (the contract); the views stay plain SQL DuckDB can parse.
// Frozen once released: the view columns are written out here, not read from elsewhere.
import type { Migration } from './types.js';

const OPEN = 9223372036854775807; // "not closed": sorts after every snapshot id
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
  ['module_access', 'module_access_versions', ['workspace_id', 'user_id', 'module_id', 'granted', 'open_to_role', 'can_access', 'is_creator', 'raw']],
  ['resolved_references', 'reference_versions', ['module_id', 'record_id', 'column_id', 'items', 'display', 'raw']],
];

/** Tables reports join by key (cells and activity are reached by the indexes below instead). */
const KEYED: Array<[table: string, key: string[]]> = [
  ['workspace_versions', ['id']],
  ['member_versions', ['workspace_id', 'user_id']],
  ['module_versions', ['id']],
  ['collection_versions', ['id']],
  ['column_versions', ['id']],
  ['record_versions', ['id']],
  ['amendment_versions', ['id']],
  ['automation_versions', ['id']],
];

function viewSql([view, table, columns]: (typeof VIEWS)[number]): string {
  const cols = columns.map((c) => `"${c}"`).join(', ');
  return `DROP VIEW "${view}";
CREATE VIEW "${view}" AS SELECT ${cols} FROM ${table}
  WHERE valid_from <= ${LATEST} AND coalesce(valid_to, ${OPEN}) > ${LATEST};`;
}

const INDEXES = `
CREATE INDEX record_versions_report ON record_versions
  (parent_record_id, is_archived, is_completed, module_id, workspace_id, id, valid_from, valid_to);
DROP INDEX record_versions_parent_record_id;
CREATE INDEX cell_versions_record_column ON cell_versions (record_id, column_id, valid_from, valid_to, value);
DROP INDEX cell_versions_record_id;
CREATE INDEX cell_versions_column_value ON cell_versions (column_id, value, record_id, valid_from, valid_to);
DROP INDEX cell_versions_column_id;
CREATE INDEX column_versions_module_type ON column_versions (module_id, scope, type, position, id, valid_from, valid_to);
DROP INDEX column_versions_module_id;
CREATE INDEX activity_versions_created_at ON activity_versions (created_at, workspace_id, user_id, action, valid_from, valid_to);
`;

export const migration012: Migration = {
  version: 12,
  name: 'reporting-speed',
  sql: [
    // replaces (key, valid_from): the same prefix for a key's history, and the planner no longer
    // has two equally good-looking indexes to choose from for "key as of L"
    ...KEYED.map(([t, key]) => `CREATE INDEX ${t}_as_of ON ${t} (${key.join(', ')}, coalesce(valid_to, ${OPEN}), valid_from);
DROP INDEX ${t}_history;`),
    INDEXES,
    ...VIEWS.map(viewSql),
  ].join('\n'),
};
