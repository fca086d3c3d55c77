// Characters that change how text reads without showing themselves, in names from the service: a
// module called `invoice<U+202E>gpj.exe` would show as "invoiceexe.jpg", a zero-width space or a
// BOM hides inside a name, a C1 control or a bidi mark moves what follows. Every console page
// (module, record, search, recover, changes) writes each as the terminal does (`\u202e`, shown()'s
// spelling) — in titles, options, links, headings and cells — and never sends one raw; ordinary
// non-ASCII names (accents, CJK, emoji sequences) are sent as they are, and nothing is escaped twice.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/emulator/types.js';
import { makeHarness, type Harness } from '../helpers/harness.js';
import { serveConsole, type ServedConsole } from '../helpers/ui-kit.js';

const SPOOF = 'invoice\u202Egpj.exe';
const SHOWN = 'invoice\\u202egpj.exe';
const HIDDEN_RECORD = 'report\u2067fdp.scr\u2069 zero\u200Bwidth\u200E\u200F bom\uFEFF c1\u0085\u009B end';
const HIDDEN_RECORD_SHOWN = 'report\\u2067fdp.scr\\u2069 zero\\u200bwidth\\u200e\\u200f bom\\ufeff c1\\u0085\\u009b end';
const COLLECTION = 'Tasks\u2066 \u0080\u2069 done';
const COLLECTION_SHOWN = 'Tasks\\u2066 \\u0080\\u2069 done';
// ordinary names as they are: accents, CJK, an emoji ZWJ sequence (needs U+200D), markup escaped once
const ORDINARY = 'Café naïve 東京 👩\u200D👩\u200D👧 🎉 & <b> C:\\u202e-literal';
const ORDINARY_SENT = 'Café naïve 東京 👩\u200D👩\u200D👧 🎉 &amp; &lt;b&gt; C:\\u202e-literal';
/** What must never be sent raw (the class display-text.ts escapes, bar tab, newline and CR). */
const RAW = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B\u200E\u200F\u2028-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB]/u;

describe.each<Dialect>(['spec', 'observed'])('hidden characters in the console (%s)', (dialect) => {
  let h: Harness;
  let c: ServedConsole;
  let moduleId: string;
  let recordId: string;
  let ordinaryId: string;

  beforeAll(async () => {
    h = await makeHarness(dialect);
    await h.sync({ full: true });
    const state = h.store.stateAt()!;
    const mod = state.modules()[0]!;
    moduleId = mod.id;
    await h.client.updateModule(mod.id, { name: SPOOF });
    const recs = state.records(mod.id).filter((r) => r.parentRecordId === null);
    recordId = recs[0]!.id;
    ordinaryId = recs[1]!.id;
    await h.client.updateRecord(recordId, { name: `${HIDDEN_RECORD} ${SPOOF}` });
    await h.client.updateRecord(ordinaryId, { name: ORDINARY });
    const coll = state.collections(mod.id)[0]!;
    await h.client.updateCollection(coll.id, { name: COLLECTION });
    await h.emu.idle();
    const r = await h.sync({ full: true });
    expect(r.status).toBe('complete');
    c = await serveConsole(h.dbPath);
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await h?.close();
  });

  const page = async (p: string): Promise<string> => {
    const res = await fetch(`${c.url}${p}`);
    const text = await res.text();
    expect(res.status, p).toBe(200);
    expect(text.match(RAW)?.[0], `${p} sends a hidden character raw`).toBeUndefined();
    return text;
  };

  it('module and record pages: each hidden character written as its escape, ordinary names as they are', async () => {
    const module = await page(`/module/${moduleId}`);
    expect(module).toContain(`<title>${SHOWN}`);
    expect(module).toContain(HIDDEN_RECORD_SHOWN);
    expect(module).toContain(COLLECTION_SHOWN);
    expect(module).toContain(ORDINARY_SENT);
    const record = await page(`/record/${recordId}`);
    expect(record).toContain(HIDDEN_RECORD_SHOWN);
    expect(record).toContain(SHOWN);
    const ordinary = await page(`/record/${ordinaryId}`);
    expect(ordinary).toContain(ORDINARY_SENT);
    expect(ordinary).not.toContain('&amp;amp;');
    expect(ordinary).not.toContain('C:\\\\u202e');
  });

  it('search, recover and changes pages', async () => {
    expect(await page('/search?q=end')).toContain(HIDDEN_RECORD_SHOWN);
    expect(await page('/search?q=naïve')).toContain(ORDINARY_SENT);
    const recover = await page('/recover');
    expect(recover.match(/<option[^>]*>[^<]*invoice[^<]*/)?.[0], 'the recover page option').toContain(SHOWN);
    expect(await page(`/recover?module=${moduleId}`)).toContain(SHOWN);
    const rollback = await page(`/recover?module=${moduleId}&snapshot=1&scope=rollback`);
    expect(rollback).toContain(SHOWN);
    expect(rollback).toContain(HIDDEN_RECORD_SHOWN);
    const changes = await page('/changes?from=1&to=2');
    expect(changes).toContain(HIDDEN_RECORD_SHOWN);
    expect(changes).toContain(ORDINARY_SENT);
  });

  it('the search box shows hidden characters escaped, and sending it again finds the same', async () => {
    const hits = (p: string): string[] => [...p.matchAll(/href="[^"]*\/record\/([^"?]+)/g)].map((m) => m[1]!).sort();
    const first = await page(`/search?q=${encodeURIComponent('zero\u200Bwidth c1\u0085\u009B end')}`);
    expect(hits(first)).toContain(recordId);
    // what the box holds, as a browser submits it (the attribute's entities read back)
    const box = first.match(/<input type="text" name="q" value="([^"]*)"/)?.[1];
    expect(box).toBe('zero\\u200bwidth c1\\u0085\\u009b end');
    const sent = box!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    const again = await page(`/search?q=${encodeURIComponent(sent)}`);
    expect(hits(again)).toEqual(hits(first));
    expect(again).toContain(`value="${box}"`);
    // a backslash sequence that is not a hidden character's escape is searched as typed
    expect(hits(await page(`/search?q=${encodeURIComponent('C:\\u202e-literal')}`))).toEqual([ordinaryId]);
  });
});
