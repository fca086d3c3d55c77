// Hostile strings round-trip byte for byte: created through the emulator's API as record names,
// amendment messages and cell values, synced, read back from the views and from `raw`.
// An unknown column type and unknown fields (injected through a proxy) survive in `raw`.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/port.js';
import type { Dialect } from '../../src/emulator/types.js';
import { runPass } from '../../src/sync/pass.js';
import { startProxiedHarness, type ProxiedHarness, type RunningProxy } from '../helpers/fault-kit.js';
import { api, silentLogger, unwrap, view, type Harness } from '../helpers/harness.js';

const LONG = `${'Ω≈ç√'.repeat(2499)}end!`; // 10,000 UTF-16 units, multi-byte in UTF-8
const HOSTILE: Record<string, string> = {
  quotes: `He said "hi" & it's <b>bold</b> \`tick\` \\back\\slash \\"escaped\\"`,
  sql: `'); DROP TABLE records;--`,
  sql2: `Robert"); DELETE FROM record_versions; SELECT ('`,
  emoji: '👩‍👩‍👧‍👦 🎉 🇫🇷 e\u0301 \u{1F600}',
  rtl: 'مرحبا بالعالم \u202Eevil\u202C שלום עולם',
  long: LONG,
  jsonObject: '{"a":1,"b":[true,null],"c":"x"}',
  jsonArray: '["65f0c0ffee0000000000aaaa"]',
  jsonScalar: 'null',
  number: '007',
  whitespace: '  padded \n\tline two\r\n  ',
  nul: 'before\u0000after',
  percent: '%s %d %n %x ${x} {{x}} $1',
};

describe.each(['spec', 'observed'] as Dialect[])('hostile strings (%s dialect)', (dialect) => {
  let h: Harness;
  let proxy: RunningProxy;
  let client: ServiceClient;
  let setup: ProxiedHarness | undefined;

  beforeAll(async () => {
    setup = await startProxiedHarness(dialect, 31);
    ({ h, proxy, client } = setup);
  });
  afterAll(async () => {
    await setup?.close();
  });

  it('round-trip byte for byte through views and raw; unknown types and fields kept', async () => {
    const dump = h.emu.dump();
    const col = dump.columns.find((c) => !c.isDeleted && c.type === 'text' && c.scope === 'record') as { _id: string; module: string; workspace: string };
    const coll = dump.collections.find((c) => !c.isDeleted && c.module === col.module) as { _id: string };

    const created: Record<string, { recordId: string; amendmentId: string; cellId: string }> = {};
    for (const [label, s] of Object.entries(HOSTILE)) {
      const rec = await api(h.emu, 'POST', `/records/${coll._id}`, { name: s });
      expect(rec.status, `${label}: ${JSON.stringify(rec.body)}`).toBe(201);
      const recordId = unwrap(rec.body, 'record')._id as string;
      const am = await api(h.emu, 'POST', `/amendments/${recordId}`, { message: s });
      expect(am.status, `${label}: ${JSON.stringify(am.body)}`).toBe(201);
      const cell = await api(h.emu, 'POST', '/record-values', {
        record: recordId,
        column: col._id,
        value: s,
        collectionName: coll._id,
        module: col.module,
        workspace: col.workspace,
      });
      expect(cell.status, `${label}: ${JSON.stringify(cell.body)}`).toBe(201);
      const cellBody = unwrap(unwrap(cell.body, 'recordValue'), 'value');
      created[label] = { recordId, amendmentId: unwrap(am.body, 'amendment')._id as string, cellId: cellBody._id as string };
    }
    await h.emu.idle();

    // an unknown column type and unknown fields, as a newer service might send them
    const holoId = 'ffffffffffffffff00000001';
    proxy.setRewrite((req, body) => {
      if (req.method !== 'GET') return undefined;
      if (req.path === `/api/columns/${col.module}` && !req.query.includes('subrecord')) {
        const holo = {
          _id: holoId,
          name: 'Hologram ✨',
          type: 'hologram',
          module: col.module,
          workspace: col.workspace,
          scope: 'record',
          position: 99,
          settings: { projector: { lumens: 9000 } },
          futureField: { nested: [1, 'two', null], deep: { 'key with space': true } },
        };
        return body.replace(/"columns":\[/, `"columns":[${JSON.stringify(holo)},`);
      }
      if (req.path === `/api/records/${coll._id}`) {
        const first = created.sql!.recordId;
        return body.replace(`"_id":"${first}"`, `"futureField":{"nested":[1,"two",null]},"_id":"${first}"`);
      }
      return undefined;
    });

    const r = await runPass({ client, store: h.store, logger: silentLogger }, { full: true });
    expect(r.status).toBe('complete');
    expect(r.failures).toEqual([]);
    expect(proxy.rewritten.length).toBeGreaterThanOrEqual(2);

    const mismatches: string[] = [];
    const check = (what: string, got: unknown, want: string): void => {
      if (got !== want) mismatches.push(`${what}: got ${JSON.stringify(got)?.slice(0, 120)}, want ${JSON.stringify(want).slice(0, 120)}`);
    };
    for (const [label, s] of Object.entries(HOSTILE)) {
      const ids = created[label]!;
      const rec = view(h.store, 'records', 'WHERE id = ?', [ids.recordId])[0];
      check(`${label} record.name`, rec?.name, s);
      check(`${label} record.raw.name`, rec && JSON.parse(rec.raw as string).name, s);
      const am = view(h.store, 'amendments', 'WHERE id = ?', [ids.amendmentId])[0];
      check(`${label} amendment.message`, am?.message, s);
      check(`${label} amendment.raw.message`, am && JSON.parse(am.raw as string).message, s);
      const cell = view(h.store, 'cells', 'WHERE id = ?', [ids.cellId])[0];
      check(`${label} cell.value`, cell?.value, s);
      check(`${label} cell.raw.value`, cell && JSON.parse(cell.raw as string).value, s);
      // the bytes, not only the JS strings
      if (rec) expect(Buffer.from(String(rec.name), 'utf8').equals(Buffer.from(s, 'utf8')), label).toBe(true);
      // the state reader agrees
      check(`${label} stateAt().record().name`, h.store.stateAt()!.record(ids.recordId)?.name, s);
    }
    expect(mismatches).toEqual([]);
    expect(String(view(h.store, 'records', 'WHERE id = ?', [created.long!.recordId])[0]!.name).length).toBe(10_000);
    // the SQL in the data did nothing
    expect((h.store.db.prepare('SELECT COUNT(*) AS n FROM record_versions').get() as { n: number }).n).toBeGreaterThan(0);

    const holo = view(h.store, 'columns', 'WHERE id = ?', [holoId])[0]!;
    expect(holo.type).toBe('hologram');
    expect(holo.name).toBe('Hologram ✨');
    const holoRaw = JSON.parse(holo.raw as string);
    expect(holoRaw.type).toBe('hologram');
    expect(holoRaw.futureField).toEqual({ nested: [1, 'two', null], deep: { 'key with space': true } });
    expect(holoRaw.settings).toEqual({ projector: { lumens: 9000 } });
    const sqlRec = view(h.store, 'records', 'WHERE id = ?', [created.sql!.recordId])[0]!;
    expect(JSON.parse(sqlRec.raw as string).futureField).toEqual({ nested: [1, 'two', null] });
    expect(h.store.verify().problems).toEqual([]);
  });
});
