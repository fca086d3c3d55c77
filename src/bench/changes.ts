// K mixed writes for the incremental benchmark, through plain HTTP (as a user of the service would).

type Json = any;

async function call(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${baseUrl}/api${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

const unwrap = (b: Json, k: string): Json => (b && typeof b === 'object' && b[k] && typeof b[k] === 'object' ? b[k] : b);

export interface ChangeSummary {
  writes: number;
  touchedModules: number;
  collectionsOfTouched: number;
  workspaces: number;
}

/**
 * Applies `k` writes spread over `moduleCount` modules (from the `firstModule`-th on): renames, completions, cells, amendments, creates,
 * moves; with `subRecords`, one write in four is a sub-record's completion or position instead (the
 * deployed service logs neither: only the module's `updatedAt` moves).
 */
export async function applyMixedChanges(
  baseUrl: string, key: string, k: number, moduleCount: number, opts: { subRecords?: boolean; firstModule?: number } = {},
): Promise<ChangeSummary> {
  const { workspaces } = await call(baseUrl, key, 'GET', '/workspaces');
  const ws = (workspaces[0].workspace ?? workspaces[0])._id as string;
  const { modules } = await call(baseUrl, key, 'GET', `/modules/${ws}`);
  // firstModule rotates the touched modules (a history spread over the workspace, not one corner)
  const first = (opts.firstModule ?? 0) % modules.length;
  const chosen = [...modules.slice(first), ...modules.slice(0, first)].slice(0, moduleCount);
  let collectionsOfTouched = 0;
  const targets: Array<{ module: Json; collections: Json[]; columns: Json[]; records: Json[] }> = [];
  for (const m of chosen) {
    const { collections } = await call(baseUrl, key, 'GET', `/collections/${m._id}`);
    const { columns } = await call(baseUrl, key, 'GET', `/columns/${m._id}`);
    const { records } = await call(baseUrl, key, 'GET', `/records/${collections[0]._id}`);
    collectionsOfTouched += collections.length;
    targets.push({ module: m, collections, columns, records });
  }
  for (let i = 0; i < k; i++) {
    const t = targets[i % targets.length];
    const rec = t.records[(i * 7) % t.records.length];
    if (opts.subRecords && i % 4 === 3) {
      const parent = t.records.find((r: Json, j: number) => j >= (i * 3) % t.records.length && r.subRecordCount > 0) ?? t.records.find((r: Json) => r.subRecordCount > 0);
      if (parent) {
        const { records: subs } = await call(baseUrl, key, 'GET', `/records/${parent._id}/sub-records`);
        const sub = subs[i % subs.length];
        await call(baseUrl, key, 'PUT', `/records/${sub._id}`, i % 8 === 3 ? { isCompleted: !sub.isCompleted } : { position: (Number(sub.position) || 0) + 1 });
        continue;
      }
    }
    switch (i % 6) {
      case 0:
        await call(baseUrl, key, 'PUT', `/records/${rec._id}`, { name: `renamed ${i}` });
        break;
      case 1:
        await call(baseUrl, key, 'PUT', `/records/${rec._id}`, { isCompleted: !rec.isCompleted });
        break;
      case 2: {
        const col = t.columns.find((c: Json) => c.type === 'text') ?? t.columns[0];
        const { values } = await call(baseUrl, key, 'GET', `/record-values/${rec._id}`);
        const existing = values.find((v: Json) => (v.column?._id ?? v.column) === col._id);
        if (existing) await call(baseUrl, key, 'PUT', `/record-values/${existing._id}`, { value: `bench ${i}` });
        else {
          await call(baseUrl, key, 'POST', '/record-values', {
            record: rec._id, column: col._id, collectionName: t.collections[0]._id, module: t.module._id, workspace: ws, value: `bench ${i}`,
          });
        }
        break;
      }
      case 3:
        await call(baseUrl, key, 'POST', `/amendments/${rec._id}`, { message: `bench note ${i}` });
        break;
      case 4:
        unwrap(await call(baseUrl, key, 'POST', `/records/${t.collections[0]._id}`, { name: `bench new ${i}` }), 'record');
        break;
      case 5:
        await call(baseUrl, key, 'PUT', `/records/${rec._id}`, { collectionName: t.collections[1 % t.collections.length]._id });
        break;
    }
  }
  return { writes: k, touchedModules: targets.length, collectionsOfTouched, workspaces: workspaces.length };
}

/** `call` for idempotent requests (GET, PUT): a connection the server closed under a reused socket
 * is tried again, up to three times. */
async function callAgain(baseUrl: string, key: string, method: 'GET' | 'PUT', path: string, body?: unknown): Promise<Json> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(baseUrl, key, method, path, body);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof TypeError)) throw e;
    }
  }
}

/** Runs `work` over `items`, `width` at a time. */
async function pool<T>(items: T[], width: number, work: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/**
 * The damage a rollback undoes: `cells` existing cell values overwritten and `renames` records
 * renamed in one module (an import gone wrong), 16 writes at a time.
 */
export async function applyBulkOverwrite(baseUrl: string, key: string, moduleId: string, cells: number, renames: number): Promise<{ cells: number; renames: number }> {
  const { collections } = await callAgain(baseUrl, key, 'GET', `/collections/${moduleId}`);
  const records: Json[] = [];
  for (const c of collections) records.push(...(await callAgain(baseUrl, key, 'GET', `/records/${c._id}`)).records);
  const targets: Json[] = [];
  await pool(records, 16, async (r) => {
    if (targets.length >= cells) return;
    const { values } = await callAgain(baseUrl, key, 'GET', `/record-values/${r._id}`);
    for (const v of values) if (targets.length < cells && typeof v.value === 'string' && (v.column?.type === 'text' || v.column?.type === 'number')) targets.push(v);
  });
  await pool(targets, 16, async (v) => {
    await callAgain(baseUrl, key, 'PUT', `/record-values/${v._id}`, { value: v.column?.type === 'number' ? '0' : 'overwritten by an import' });
  });
  const renamed = records.slice(0, renames);
  await pool(renamed, 16, async (r) => {
    await callAgain(baseUrl, key, 'PUT', `/records/${r._id}`, { name: `${String(r.name)} (imported)` });
  });
  return { cells: targets.length, renames: renamed.length };
}

/** The worst day: a whole workspace deleted (owner key). */
export async function deleteWorkspace(baseUrl: string, key: string, workspaceId: string): Promise<void> {
  await call(baseUrl, key, 'DELETE', `/workspaces/${workspaceId}`);
}
