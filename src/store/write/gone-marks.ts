// Listings and explicit gone marks: which current versions a batch closes as of snapshot S.
// An entity that vanished from a listing is marked gone WITH its descendants (a module that is no
// longer listed will not have its records listed either); explicit marks cascade only when asked.
// Upserts run before listings, so a child that moved (a record now in another collection) has
// already left the parent's scope and is not swept along.
import type { GoneMark, Listing } from '../port.js';
import type { Tally, VersionedWriter } from './versioned-writer.js';

const NOT_IN = `NOT IN (SELECT value FROM json_each(?))`;
const IN = `IN (SELECT value FROM json_each(?))`;
const json = (ids: readonly string[]): string => JSON.stringify(ids);

export class GoneMarker {
  constructor(
    private readonly w: VersionedWriter,
    private readonly s: number,
    private readonly t: Tally,
  ) {}

  listing(l: Listing): void {
    const { w } = this;
    const ids = json(l.ids);
    switch (l.kind) {
      case 'workspace': {
        const scope = l.scopeIds ? ` AND id ${IN}` : '';
        const absent = w.currentIds('workspace', `id ${NOT_IN}${scope}`, l.scopeIds ? [ids, json(l.scopeIds)] : [ids]);
        for (const id of absent) this.workspace(id);
        return;
      }
      case 'member':
        this.close('member', `workspace_id = ? AND user_id ${NOT_IN}`, [l.workspaceId, ids]);
        return;
      case 'module':
        for (const id of w.currentIds('module', `workspace_id = ? AND id ${NOT_IN}`, [l.workspaceId, ids])) this.module(id);
        return;
      case 'collection':
        for (const id of w.currentIds('collection', `module_id = ? AND id ${NOT_IN}`, [l.moduleId, ids])) this.collection(id);
        return;
      case 'column':
        for (const id of w.currentIds('column', `module_id = ? AND scope = ? AND id ${NOT_IN}`, [l.moduleId, l.scope, ids])) {
          this.column(id);
        }
        return;
      case 'record':
        this.records(
          w.currentIds('record', `collection_id = ? AND parent_record_id IS NULL AND is_archived = 0 AND id ${NOT_IN}`, [l.collectionId, ids]),
        );
        return;
      case 'subrecord':
        this.records(w.currentIds('record', `parent_record_id = ? AND is_archived = 0 AND id ${NOT_IN}`, [l.parentRecordId, ids]));
        return;
      case 'cell':
        this.close('cell', `record_id = ? AND id ${NOT_IN}`, [l.recordId, ids]);
        return;
      case 'amendment':
        this.close('amendment', `record_id = ? AND id ${NOT_IN}`, [l.recordId, ids]);
        return;
      case 'moduleAutomation':
        this.close('automation', `module_id = ? AND scope = 'module' AND id ${NOT_IN}`, [l.moduleId, ids]);
        return;
      case 'workspaceAutomation':
        this.close('automation', `workspace_id = ? AND scope = 'workspace' AND id ${NOT_IN}`, [l.workspaceId, ids]);
        return;
      case 'reference':
        this.close('reference', `module_id = ? AND (record_id || '/' || column_id) ${NOT_IN}`, [l.moduleId, ids]);
        return;
      case 'moduleAccess':
        this.close('moduleAccess', `workspace_id = ? AND user_id = ? AND module_id ${NOT_IN}`, [l.workspaceId, l.userId, ids]);
        return;
    }
  }

  gone(g: GoneMark): void {
    if (!g.cascade) {
      this.close(g.kind, 'id = ?', [g.id]);
      return;
    }
    switch (g.kind) {
      case 'workspace':
        return this.workspace(g.id);
      case 'module':
        return this.module(g.id);
      case 'collection':
        return this.collection(g.id);
      case 'column':
        return this.column(g.id);
      case 'record':
        return this.records([g.id]);
      case 'cell':
      case 'amendment':
      case 'automation':
        this.close(g.kind, 'id = ?', [g.id]);
        return;
    }
  }

  private close(kind: Parameters<VersionedWriter['closeWhere']>[1], where: string, params: unknown[]): void {
    this.w.closeWhere(this.s, kind, where, params, this.t);
  }

  private workspace(id: string): void {
    this.close('member', 'workspace_id = ?', [id]);
    for (const m of this.w.currentIds('module', 'workspace_id = ?', [id])) this.module(m);
    this.close('automation', 'workspace_id = ?', [id]);
    this.close('moduleAccess', 'workspace_id = ?', [id]);
    this.close('workspace', 'id = ?', [id]);
  }

  private module(id: string): void {
    this.records(this.w.currentIds('record', 'module_id = ?', [id]));
    this.close('amendment', 'module_id = ?', [id]);
    this.close('collection', 'module_id = ?', [id]);
    this.close('column', 'module_id = ?', [id]);
    this.close('automation', 'module_id = ?', [id]);
    this.close('moduleAccess', 'module_id = ?', [id]);
    this.close('reference', 'module_id = ?', [id]);
    this.close('module', 'id = ?', [id]);
  }

  /** Its top-level records go with it; a sub-record follows its parent, not the collection id it
   * carries (a parent moved elsewhere keeps its sub-records live on the service). */
  private collection(id: string): void {
    this.records(this.w.currentIds('record', 'collection_id = ? AND parent_record_id IS NULL', [id]));
    this.close('collection', 'id = ?', [id]);
  }

  /** The column alone: whether its values go too depends on the service (the deployed one keeps
   * them, listed with `column: null`), so the cells' own listings decide — the crawl re-reads
   * every record that held one. */
  private column(id: string): void {
    this.close('column', 'id = ?', [id]);
  }

  /** Records with their sub-records (any depth), cells and amendments. */
  private records(seed: string[]): void {
    if (seed.length === 0) return;
    const all = [...seed];
    let frontier = seed;
    while (frontier.length > 0) {
      frontier = this.w.currentIds('record', `parent_record_id ${IN} AND id ${NOT_IN}`, [json(frontier), json(all)]);
      all.push(...frontier);
    }
    const ids = json(all);
    this.close('cell', `record_id ${IN}`, [ids]);
    this.close('amendment', `record_id ${IN}`, [ids]);
    this.close('record', `id ${IN}`, [ids]);
  }
}
