// A running service as a ServiceTarget: the suites' fixtures are built through its API in a
// workspace of their own, and its state is read back through the API. What cannot be read that way
// is said here, once: no route lists archived records, so a record this run has seen that left
// every listing while its module and collection live is taken as archived (its last seen fields,
// `isArchived: true`) — the same conclusion the service's own rules force, since nothing else hides
// a record there. Records created and archived by someone else between two reads are not known.

import type { Dialect } from '../../src/emulator/types.js';
import type { LooseDump } from './harness.js';
import type { LiveSettings, ServiceTarget } from './service-target.js';

type Doc = Record<string, any>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const idOf = (x: unknown): string | null => (x && typeof x === 'object' ? String((x as Doc)._id ?? '') || null : typeof x === 'string' ? x : null);
const unwrap = (b: any, k: string): any => (b && typeof b === 'object' && b[k] && typeof b[k] === 'object' ? b[k] : b);

async function http(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}/api${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* HTML error page */
  }
  return { status: res.status, body: parsed };
}

export class LiveService implements ServiceTarget {
  readonly live = true;
  readonly dialect: Dialect = 'observed';
  readonly label = 'live (observed)';
  users: Array<{ id: string; apiKey: string }> = [];
  workspaceId = '';
  /** Every record this run has seen listed, as last seen. */
  private readonly seen = new Map<string, Doc>();
  /** Every module, collection and column this run has seen listed (deleted ones go on being reported
   * as deleted, with what they held, as the emulator's dump does). */
  private readonly seenStructure = { modules: new Map<string, Doc>(), collections: new Map<string, Doc>(), columns: new Map<string, Doc>() };

  constructor(private readonly settings: LiveSettings) {}

  get baseUrl(): string {
    return this.settings.baseUrl;
  }
  get apiKey(): string {
    return this.settings.apiKey;
  }

  call(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any }> {
    return http(this.baseUrl, key ?? this.apiKey, method, path, body);
  }

  private async ok(method: string, path: string, body?: unknown, key = this.apiKey): Promise<any> {
    const r = await http(this.baseUrl, key, method, path, body);
    if (r.status >= 300) throw new Error(`live: ${method} ${path} -> ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    return r.body;
  }

  /** A key's user id, from the owner row of a throwaway workspace. */
  private async whoIs(key: string): Promise<string> {
    const ws = unwrap(await this.ok('POST', '/workspaces', { name: `wbsync identity ${Date.now()}` }, key), 'workspace')._id as string;
    const { members } = await this.ok('GET', `/workspace-members/${ws}`, undefined, key);
    await this.ok('DELETE', `/workspaces/${ws}`, undefined, key);
    const owner = (members as Doc[]).find((m) => m.role === 'owner');
    if (!owner) throw new Error('live: a fresh workspace has no owner row');
    return idOf(owner.user)!;
  }

  /** The suite's own workspace, seeded through the API like a small `demo` seed. */
  async seed(name: string, rnd: () => number): Promise<string> {
    this.users = [{ id: await this.whoIs(this.apiKey), apiKey: this.apiKey }];
    if (this.settings.apiKey2) this.users.push({ id: await this.whoIs(this.settings.apiKey2), apiKey: this.settings.apiKey2 });
    const ws = unwrap(await this.ok('POST', '/workspaces', { name }), 'workspace')._id as string;
    this.workspaceId = ws;
    if (this.users[1]) await this.ok('POST', `/workspace-members/${ws}`, { userId: this.users[1].id, role: 'member' });
    for (let m = 0; m < 2; m++) {
      const mod = unwrap(await this.ok('POST', `/modules/${ws}`, { name: `Board ${m + 1}` }), 'module')._id as string;
      const cols: Doc[] = [];
      for (const [cname, type] of [['Notes', 'text'], ['Amount', 'number'], ['Status', 'status']]) {
        cols.push(unwrap(await this.ok('POST', `/columns/${mod}`, { name: cname, type }), 'column'));
      }
      // the sub-record grid's own column first, so the first sub-record seeds nothing
      await this.ok('POST', `/columns/${mod}`, { name: 'Step', type: 'text', scope: 'subrecord' });
      for (let c = 0; c < 3; c++) {
        const col = unwrap(await this.ok('POST', `/collections/${mod}`, { name: `Group ${c + 1}`, position: c }), 'collection')._id as string;
        for (let r = 0; r < (c === 2 ? 2 : 4); r++) {
          const rec = unwrap(await this.ok('POST', `/records/${col}`, { name: `Row ${m + 1}.${c + 1}.${r + 1}` }), 'record');
          if (rnd() < 0.7) {
            const cell = cols[Math.floor(rnd() * cols.length)]!;
            const value = cell.type === 'number' ? String(Math.floor(rnd() * 100)) : cell.type === 'status' ? 'Done' : `note ${r}`;
            await this.ok('POST', '/record-values', { record: rec._id, column: cell._id, collectionName: col, module: mod, workspace: ws, value });
          }
          if (r < 2) for (let s = 0; s < 2; s++) await this.ok('POST', `/records/${rec._id}/sub-records`, { name: `Step ${s + 1}` });
          if (r === 1) {
            const note = unwrap(await this.ok('POST', `/amendments/${rec._id}`, { message: 'First note' }), 'amendment');
            await this.ok('POST', `/amendments/${rec._id}`, { message: 'A reply', parentComment: note._id });
          }
        }
      }
      await this.ok('POST', `/automations/${mod}`, {
        name: `Note completions ${m + 1}`, trigger: { type: 'record_completed' }, conditions: [], match: 'all',
        actions: [{ type: 'post_amendment', value: 'Completed {record}' }],
      });
    }
    await this.dump();
    return ws;
  }

  async dump(): Promise<LooseDump> {
    const ws = this.workspaceId;
    const workspace = unwrap(await this.ok('GET', `/workspaces/${ws}`), 'workspace');
    const members = ((await this.ok('GET', `/workspace-members/${ws}`)).members as Doc[]).map((m) => ({ ...m, user: idOf(m.user) }));
    const modules = (await this.ok('GET', `/modules/${ws}`)).modules as Doc[];
    const collections: Doc[] = [];
    const columns: Doc[] = [];
    const automations: Doc[] = ((await this.ok('GET', `/automations/workspace/${ws}`)).automations as Doc[]).map((a) => ({ ...a, module: null }));
    const listed = new Map<string, Doc>();
    for (const m of modules) {
      const [cs, rc, sc, au] = await Promise.all([
        this.ok('GET', `/collections/${m._id}`),
        this.ok('GET', `/columns/${m._id}`),
        this.ok('GET', `/columns/${m._id}?scope=subrecord`),
        this.ok('GET', `/automations/${m._id}`),
      ]);
      collections.push(...(cs.collections as Doc[]));
      columns.push(...(rc.columns as Doc[]).map((c) => ({ ...c, scope: c.scope ?? 'record' })), ...(sc.columns as Doc[]));
      automations.push(...(au.automations as Doc[]));
      const lists = await Promise.all((cs.collections as Doc[]).map((c) => this.ok('GET', `/records/${c._id}`)));
      for (const l of lists) for (const r of l.records as Doc[]) listed.set(r._id, { ...r, parentRecord: null });
    }
    const liveMods = new Set(modules.map((m) => m._id as string));
    const liveCols = new Set(collections.map((c) => c._id as string));
    const archived = (r: Doc): Doc => ({ ...r, isArchived: true });
    // top-level rows this run saw that left every listing, their board still there: archived
    const archivedTop = [...this.seen.values()].filter((r) => !r.parentRecord && !listed.has(r._id) && liveMods.has(r.module) && liveCols.has(r.collectionName)).map(archived);
    const parents = [...[...listed.values()].filter((r) => r.subRecordCount > 0 || [...this.seen.values()].some((s) => s.parentRecord === r._id)), ...archivedTop];
    const subLists = await Promise.all(parents.map((p) => this.ok('GET', `/records/${p._id}/sub-records`)));
    const subs = new Map<string, Doc>();
    for (const l of subLists) for (const s of l.records as Doc[]) subs.set(s._id, s);
    const reachableParents = new Set(parents.map((p) => p._id as string));
    const archivedSubs = [...this.seen.values()].filter((r) => r.parentRecord && !subs.has(r._id) && reachableParents.has(r.parentRecord)).map(archived);
    for (const r of [...listed.values(), ...subs.values()]) this.seen.set(r._id, r);
    const liveRecords = [...listed.values(), ...subs.values()];
    // values and threads of every reachable record: archived ones are still readable by id
    const reachable = [...liveRecords, ...archivedTop, ...archivedSubs];
    const [valueLists, noteLists] = await Promise.all([
      Promise.all(reachable.map((r) => this.ok('GET', `/record-values/${r._id}`))),
      Promise.all(reachable.map((r) => this.ok('GET', `/amendments/${r._id}`))),
    ]);
    const values = valueLists.flatMap((l) => (l.values as Doc[]).map((v) => ({ ...v, column: idOf(v.column), isDeleted: false })));
    const amendments = noteLists.flatMap((l) => (l.amendments as Doc[]).map((a) => ({ ...a, user: idOf(a.user), parentComment: idOf(a.parentComment) })));
    const records = [...liveRecords, ...archivedTop, ...archivedSubs].map((r) => ({ ...r, isDeleted: false }));
    // gone since this run saw them: deleted, with what they held
    const gone = <T extends Doc>(seen: Map<string, Doc>, now: Doc[]): Doc[] => {
      for (const x of now) seen.set(x._id, x);
      const live = new Set(now.map((x) => x._id as string));
      return [...seen.values()].filter((x) => !live.has(x._id)).map((x) => ({ ...x, isDeleted: true }));
    };
    const goneModules = gone(this.seenStructure.modules, modules);
    const goneCollections = gone(this.seenStructure.collections, collections);
    const goneColumns = gone(this.seenStructure.columns, columns);
    const deadModules = new Set(goneModules.map((m) => m._id as string));
    const heldByDead = [...this.seen.values()].filter((r) => deadModules.has(r.module)).map((r) => ({ ...r, isDeleted: true }));
    return {
      users: this.users.map((u) => ({ _id: u.id })),
      workspaces: [workspace],
      members,
      modules: [...modules.map((m) => ({ ...m, isDeleted: false })), ...goneModules],
      collections: [...collections.map((c) => ({ ...c, isDeleted: false })), ...goneCollections],
      columns: [...columns.map((c) => ({ ...c, isDeleted: false })), ...goneColumns],
      records: [...records, ...heldByDead],
      values,
      amendments,
      automations: automations.map((a) => ({ ...a, isDeleted: false })),
      activity: [],
      grants: [],
      notifications: [],
    } as LooseDump;
  }

  /**
   * A restore or rollback that recreates an archived record archives it again at once, so no listing
   * ever shows the copy. Its id comes from the run's id map; that it exists is checked by id (its
   * values answer), but its own fields cannot be read on the deployed service: they are taken as the
   * original's, and the count is returned for the suite to print.
   */
  async adoptCopies(oldToNew: ReadonlyMap<string, string>): Promise<{ adopted: number; missing: number; unreadable: Set<string> }> {
    const map = (id: unknown): unknown => (typeof id === 'string' ? oldToNew.get(id) ?? id : id);
    let adopted = 0;
    let missing = 0;
    /** Original ids whose copies' own fields are assumed, not read. */
    const unreadable = new Set<string>();
    await this.dump(); // what a listing shows is read, not assumed
    for (const r of [...this.seen.values()]) {
      const copy = oldToNew.get(r._id);
      if (!copy || this.seen.has(copy)) continue;
      const probe = await this.call('GET', `/record-values/${copy}`);
      if (probe.status !== 200) {
        missing++;
        continue;
      }
      this.seen.set(copy, { ...r, _id: copy, module: map(r.module), collectionName: map(r.collectionName), parentRecord: map(r.parentRecord) ?? null });
      unreadable.add(r._id);
      adopted++;
    }
    return { adopted, missing, unreadable };
  }

  async advance(ms: number): Promise<void> {
    await sleep(Math.min(ms, 5));
  }

  /** The deployed service runs automations after answering; nothing says when they end. */
  async idle(): Promise<void> {
    await sleep(200);
  }

  async together(writes: Array<() => Promise<unknown>>): Promise<void> {
    await Promise.all(writes.map((w) => w()));
  }

  /** Deletes the suite's workspace (and what is in it). */
  async cleanup(): Promise<void> {
    if (this.workspaceId) await this.call('DELETE', `/workspaces/${this.workspaceId}`);
  }
}

/** Printed once by every suite that runs live: what it does differently there. */
export const LIVE_SUBSTITUTES = [
  'fixtures: a workspace of the suite\'s own, seeded through the API (2 boards x 3 groups, cells, sub-records, a thread, an automation), deleted at the end',
  'state: read through the API; archived rows are the ones this run saw leave every listing while their board remained (no route lists them)',
  'clock: no control; a 5 ms real pause stands for advancing it, and "same millisecond" writes are sent all at once',
  'automations: a 200 ms pause stands for waiting until the engine is idle (the service gives no signal)',
  'passes: restricted to the suite\'s workspace (--workspace)',
];
