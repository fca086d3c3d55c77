// How each entity kind maps onto its versioned table: key, typed columns, conversions both ways.
// Must agree with migrations/002 (a test compares them with PRAGMA table_info).
import type { EntityKind } from '../../domain/entities.js';

/** text: string|null as is; real/int: number|null; bool: 0/1; json: JSON text (null stays NULL). */
export type ColType = 'text' | 'real' | 'int' | 'bool' | 'json';

export interface FieldSpec {
  readonly prop: string;
  readonly col: string;
  readonly type: ColType;
  /** A column a later migration added (ALTER TABLE ADD COLUMN puts it after valid_to). */
  readonly addedBy?: number;
}

export interface EntitySpec {
  readonly kind: EntityKind;
  readonly table: string;
  /** key columns (a prefix of fields) */
  readonly key: readonly string[];
  /** every column: the first migration's in table order (raw last), then those added later */
  readonly fields: readonly FieldSpec[];
}

function f(prop: string, type: ColType = 'text', col?: string): FieldSpec {
  return { prop, type, col: col ?? prop.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) };
}

const RAW = f('raw', 'json');
/** Collections and columns: the listing's order within a position tie (migration 009). */
const TIE_RANK: FieldSpec = { ...f('tieRank', 'int'), addedBy: 9 };

export const SPECS: Record<EntityKind, EntitySpec> = {
  workspace: {
    kind: 'workspace', table: 'workspace_versions', key: ['id'],
    fields: [f('id'), f('name'), f('slug'), f('description'), f('icon'), f('banner'), f('createdAt'), f('updatedAt'), RAW],
  },
  member: {
    kind: 'member', table: 'member_versions', key: ['workspace_id', 'user_id'],
    fields: [f('workspaceId'), f('userId'), f('membershipId'), f('role'), f('status'), f('firstName'), f('lastName'), f('email'), f('joinedAt'), RAW],
  },
  module: {
    kind: 'module', table: 'module_versions', key: ['id'],
    fields: [f('id'), f('workspaceId'), f('name'), f('description'), f('icon'), f('color'), f('visibility'), f('tags', 'json'), f('createdAt'), f('updatedAt'), RAW],
  },
  collection: {
    kind: 'collection', table: 'collection_versions', key: ['id'],
    fields: [f('id'), f('moduleId'), f('name'), f('color'), f('position', 'real'), f('isCollapsed', 'bool'), RAW, TIE_RANK],
  },
  column: {
    kind: 'column', table: 'column_versions', key: ['id'],
    fields: [f('id'), f('moduleId'), f('scope'), f('name'), f('type'), f('position', 'real'), f('width', 'real'), f('isRequired', 'bool'), f('isHidden', 'bool'), f('statusOptions', 'json'), f('settings', 'json'), RAW, TIE_RANK],
  },
  record: {
    kind: 'record', table: 'record_versions', key: ['id'],
    fields: [f('id'), f('workspaceId'), f('moduleId'), f('collectionId'), f('parentRecordId'), f('name'), f('position', 'real'), f('isCompleted', 'bool'), f('isArchived', 'bool'), f('subRecordCount', 'int'), f('amendmentCount', 'int'), f('createdAt'), f('updatedAt'), RAW],
  },
  cell: {
    kind: 'cell', table: 'cell_versions', key: ['id'],
    fields: [f('id'), f('recordId'), f('columnId'), f('value'), f('createdAt'), f('updatedAt'), RAW],
  },
  amendment: {
    kind: 'amendment', table: 'amendment_versions', key: ['id'],
    fields: [f('id'), f('workspaceId'), f('moduleId'), f('recordId'), f('parentId'), f('userId'), f('message'), f('edited', 'bool'), f('isDeleted', 'bool'), f('createdAt'), RAW],
  },
  automation: {
    kind: 'automation', table: 'automation_versions', key: ['id'],
    fields: [f('id'), f('workspaceId'), f('moduleId'), f('scope'), f('name'), f('trigger', 'json'), f('conditions', 'json'), f('match'), f('actions', 'json'), f('isActive', 'bool'), f('runCount', 'int'), f('lastRunAt'), f('lastError'), f('createdAt'), RAW],
  },
  activity: {
    kind: 'activity', table: 'activity_versions', key: ['id'],
    fields: [f('id'), f('workspaceId'), f('action'), f('message'), f('targetName'), f('moduleId'), f('collectionId'), f('recordId'), f('columnId'), f('userId'), f('automationId'), f('before'), f('after'), f('createdAt'), RAW],
  },
  reference: {
    kind: 'reference', table: 'reference_versions', key: ['module_id', 'record_id', 'column_id'],
    fields: [f('moduleId'), f('recordId'), f('columnId'), f('items', 'json'), f('display', 'json'), RAW],
  },
  moduleAccess: {
    kind: 'moduleAccess', table: 'module_access_versions', key: ['workspace_id', 'user_id', 'module_id'],
    fields: [f('workspaceId'), f('userId'), f('moduleId'), f('granted', 'bool'), f('openToRole', 'bool'), f('canAccess', 'bool'), f('isCreator', 'bool'), RAW],
  },
};

/** Upserts key → entity kind, in the order apply() writes them. */
export const UPSERT_ORDER = [
  ['workspaces', 'workspace'],
  ['members', 'member'],
  ['modules', 'module'],
  ['collections', 'collection'],
  ['columns', 'column'],
  ['records', 'record'],
  ['cells', 'cell'],
  ['amendments', 'amendment'],
  ['automations', 'automation'],
  ['activity', 'activity'],
  ['moduleAccess', 'moduleAccess'],
  ['references', 'reference'],
] as const satisfies ReadonlyArray<readonly [string, EntityKind]>;

export const quoteCol = (c: string): string => `"${c}"`;
export const colList = (spec: EntitySpec): string => spec.fields.map((x) => quoteCol(x.col)).join(', ');

export type SqlValue = string | number | null;

function toSql(type: ColType, v: unknown): SqlValue {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'bool':
      return v ? 1 : 0;
    case 'json':
      return JSON.stringify(v);
    case 'int':
    case 'real':
      return typeof v === 'number' ? v : Number(v);
    case 'text':
      return typeof v === 'string' ? v : String(v);
  }
}

function fromSql(type: ColType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'bool':
      return v === 1 || v === 1n;
    case 'json':
      return JSON.parse(v as string);
    default:
      return v;
  }
}

/** Column values in table order; `rawText`, when given, is stored as the raw column (already JSON). */
export function toRow(spec: EntitySpec, entity: object, rawText?: string): SqlValue[] {
  const e = entity as Record<string, unknown>;
  return spec.fields.map((fs) => (fs === RAW && rawText !== undefined ? rawText : toSql(fs.type, e[fs.prop])));
}

/** A domain entity from a row read with colList(spec) in raw (array) mode. */
export function fromRow<T>(spec: EntitySpec, row: unknown[]): T {
  const out: Record<string, unknown> = {};
  spec.fields.forEach((fs, i) => {
    out[fs.prop] = fromSql(fs.type, row[i]);
  });
  return out as T;
}

/** Key values of an entity, in key-column order. */
export function keyOf(spec: EntitySpec, entity: object): string[] {
  const e = entity as Record<string, unknown>;
  return spec.key.map((col) => String(e[spec.fields.find((x) => x.col === col)!.prop]));
}
