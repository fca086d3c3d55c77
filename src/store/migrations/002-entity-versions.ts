// One versioned table per entity kind: typed columns + raw + hash + [valid_from, valid_to).
// The column lists below are frozen with this migration (later changes are new migrations).
import type { Migration } from './types.js';

interface TableDef {
  table: string;
  key: string[];
  /** column definitions after the key columns, before raw/hash/validity */
  columns: string[];
  indexes: string[][];
}

const TABLES: TableDef[] = [
  {
    table: 'workspace_versions',
    key: ['id'],
    columns: ['name TEXT NOT NULL', 'slug TEXT', 'description TEXT', 'icon TEXT', 'banner TEXT', 'created_at TEXT', 'updated_at TEXT'],
    indexes: [],
  },
  {
    table: 'member_versions',
    key: ['workspace_id', 'user_id'],
    columns: ['membership_id TEXT', 'role TEXT NOT NULL', 'status TEXT', 'first_name TEXT', 'last_name TEXT', 'email TEXT', 'joined_at TEXT'],
    indexes: [],
  },
  {
    table: 'module_versions',
    key: ['id'],
    columns: ['workspace_id TEXT NOT NULL', 'name TEXT NOT NULL', 'description TEXT', 'icon TEXT', 'color TEXT', 'visibility TEXT', 'tags TEXT NOT NULL', 'created_at TEXT', 'updated_at TEXT'],
    indexes: [['workspace_id']],
  },
  {
    table: 'collection_versions',
    key: ['id'],
    columns: ['module_id TEXT NOT NULL', 'name TEXT NOT NULL', 'color TEXT', 'position REAL', 'is_collapsed INTEGER NOT NULL'],
    indexes: [['module_id']],
  },
  {
    table: 'column_versions',
    key: ['id'],
    columns: ['module_id TEXT NOT NULL', 'scope TEXT NOT NULL', 'name TEXT NOT NULL', 'type TEXT NOT NULL', 'position REAL', 'width REAL', 'is_required INTEGER NOT NULL', 'is_hidden INTEGER NOT NULL', 'status_options TEXT', 'settings TEXT'],
    indexes: [['module_id']],
  },
  {
    table: 'record_versions',
    key: ['id'],
    columns: ['workspace_id TEXT NOT NULL', 'module_id TEXT NOT NULL', 'collection_id TEXT', 'parent_record_id TEXT', 'name TEXT NOT NULL', 'position REAL', 'is_completed INTEGER NOT NULL', 'is_archived INTEGER NOT NULL', 'sub_record_count INTEGER NOT NULL', 'amendment_count INTEGER NOT NULL', 'created_at TEXT', 'updated_at TEXT'],
    indexes: [['module_id'], ['collection_id'], ['parent_record_id']],
  },
  {
    table: 'cell_versions',
    key: ['id'],
    columns: ['record_id TEXT NOT NULL', 'column_id TEXT', 'value TEXT', 'created_at TEXT', 'updated_at TEXT'],
    indexes: [['record_id'], ['column_id']],
  },
  {
    table: 'amendment_versions',
    key: ['id'],
    columns: ['workspace_id TEXT', 'module_id TEXT', 'record_id TEXT NOT NULL', 'parent_id TEXT', 'user_id TEXT', 'message TEXT NOT NULL', 'edited INTEGER NOT NULL', 'is_deleted INTEGER NOT NULL', 'created_at TEXT'],
    indexes: [['record_id'], ['module_id']],
  },
  {
    table: 'automation_versions',
    key: ['id'],
    columns: ['workspace_id TEXT NOT NULL', 'module_id TEXT', 'scope TEXT NOT NULL', 'name TEXT NOT NULL', '"trigger" TEXT NOT NULL', 'conditions TEXT NOT NULL', '"match" TEXT NOT NULL', 'actions TEXT NOT NULL', 'is_active INTEGER NOT NULL', 'run_count INTEGER NOT NULL', 'last_run_at TEXT', 'last_error TEXT', 'created_at TEXT'],
    indexes: [['module_id'], ['workspace_id']],
  },
  {
    table: 'activity_versions',
    key: ['id'],
    columns: ['workspace_id TEXT NOT NULL', 'action TEXT NOT NULL', 'message TEXT', 'target_name TEXT', 'module_id TEXT', 'collection_id TEXT', 'record_id TEXT', 'column_id TEXT', 'user_id TEXT', 'automation_id TEXT', '"before" TEXT', '"after" TEXT', 'created_at TEXT NOT NULL'],
    indexes: [['workspace_id', 'created_at']],
  },
  {
    table: 'module_access_versions',
    key: ['workspace_id', 'user_id', 'module_id'],
    columns: ['granted INTEGER NOT NULL', 'open_to_role INTEGER NOT NULL', 'can_access INTEGER NOT NULL', 'is_creator INTEGER NOT NULL'],
    indexes: [['module_id']],
  },
];

function tableSql(t: TableDef): string {
  const cols = [
    'vid INTEGER PRIMARY KEY',
    ...t.key.map((k) => `${k} TEXT NOT NULL`),
    ...t.columns,
    'raw TEXT NOT NULL',
    'hash TEXT NOT NULL',
    'valid_from INTEGER NOT NULL REFERENCES snapshot_runs (id)',
    'valid_to INTEGER REFERENCES snapshot_runs (id)',
    'CHECK (valid_to IS NULL OR valid_to > valid_from)',
  ];
  const keyList = t.key.join(', ');
  return [
    `CREATE TABLE ${t.table} (\n  ${cols.join(',\n  ')}\n);`,
    // at most one current version per key, and the fast path for "current version of X"
    `CREATE UNIQUE INDEX ${t.table}_current ON ${t.table} (${keyList}) WHERE valid_to IS NULL;`,
    // history of one key (stateAt, snapshotsHolding, verify)
    `CREATE INDEX ${t.table}_history ON ${t.table} (${keyList}, valid_from);`,
    `CREATE INDEX ${t.table}_valid_to ON ${t.table} (valid_to);`,
    ...t.indexes.map((cols) => `CREATE INDEX ${t.table}_${cols.join('_')} ON ${t.table} (${cols.join(', ')});`),
  ].join('\n');
}

export const migration002: Migration = {
  version: 2,
  name: 'entity-versions',
  sql: TABLES.map(tableSql).join('\n\n'),
};
