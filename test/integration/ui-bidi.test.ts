// Bidirectional controls in names people typed: a module called `invoice<U+202E>gpj.exe` would show
// as "invoiceexe.jpg". Every page shows the control as its code instead — in the page title, the
// recover page's <option>, links, headings and cells — so what is shown is what was typed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHarness, type Harness } from '../helpers/harness.js';
import { serveConsole, type ServedConsole } from '../helpers/ui-kit.js';

const SPOOF = 'invoice\u202Egpj.exe';
const SHOWN = 'invoice⟨U+202E⟩gpj.exe';
const CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

describe('bidi controls in the console', () => {
  let h: Harness;
  let c: ServedConsole;
  let moduleId: string;
  let recordId: string;

  beforeAll(async () => {
    h = await makeHarness('observed');
    await h.sync({ full: true });
    const state = h.store.stateAt()!;
    const mod = state.modules()[0]!;
    moduleId = mod.id;
    await h.client.updateModule(mod.id, { name: SPOOF });
    const rec = state.records(mod.id).find((r) => r.parentRecordId === null)!;
    recordId = rec.id;
    await h.client.updateRecord(rec.id, { name: `report\u2067fdp.scr\u2069 ${SPOOF}` });
    await h.emu.idle();
    const r = await h.sync({ full: true });
    expect(r.status).toBe('complete');
    c = await serveConsole(h.dbPath);
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await h?.close();
  });

  it('never sends a raw override or isolate; shows each as its code in titles, options, links and headings', async () => {
    const pages = ['/browse', `/module/${moduleId}`, `/record/${recordId}`, '/recover', `/recover?module=${moduleId}`, '/changes?from=1&to=2', `/search?q=invoice`];
    for (const p of pages) {
      const res = await fetch(`${c.url}${p}`);
      const text = await res.text();
      expect(res.status, p).toBe(200);
      expect(text, p).not.toMatch(CONTROLS);
    }
    const module = await (await fetch(`${c.url}/module/${moduleId}`)).text();
    expect(module).toContain(`<title>${SHOWN}`);
    const recover = await (await fetch(`${c.url}/recover`)).text();
    expect(recover.match(/<option[^>]*>[^<]*invoice[^<]*/)?.[0], 'the recover page option').toContain(SHOWN);
    const record = await (await fetch(`${c.url}/record/${recordId}`)).text();
    expect(record).toContain('report⟨U+2067⟩fdp.scr⟨U+2069⟩');
  });
});
