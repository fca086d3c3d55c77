// `wbsync demo`: the newcomer tour on the bundled emulator — mirror, query, delete a board,
// restore it, and show that nothing differs; undo a bulk overwrite in place, keeping a later edit —
// then how to point wbsync at a real service.
// What it does, loaded only when it runs (its help and flags: ../commands/demo.ts).

import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { shown } from '../../domain/display-text.js';
import { createHttpClient } from '../../api/http-client.js';
import { createLogger } from '../../config/logger.js';
import { ConfigSchema } from '../../config/schema.js';
import { startEmulator } from '../../emulator/index.js';
import { restoreModule, rollback, runDiff } from '../../restore/index.js';
import { openStore } from '../../store/index.js';
import { runPass } from '../../sync/pass.js';
import { readModuleLive } from '../../sync/live-module.js';
import type { CommandContext } from '../command.js';
import { DEMO_DB, DEMO_MODULE, ROLLBACK_COLUMN, ROLLBACK_MODULE } from '../command-values.js';
import { REPORTING_QUERIES, REPORTING_VIEWS, runReportingQuery, viewRowCounts } from '../../store/read/index.js';
import { commandLine } from '../../domain/shell-command.js';

function table(rows: Record<string, unknown>[], max = 8): string {
  if (!rows.length) return '  (no rows)';
  const cols = Object.keys(rows[0]);
  const cells = rows.slice(0, max).map((r) => cols.map((c) => shown(String(r[c] ?? '').slice(0, 40))));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const line = (cells: string[]) => `  ${cells.map((v, i) => v.padEnd(widths[i])).join('  ')}`.trimEnd();
  const out = [line(cols), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
  if (rows.length > max) out.push(`  … ${rows.length - max} more`);
  return out.join('\n');
}

export async function runDemoCommand(ctx: CommandContext): Promise<number> {
  const dbPath = resolve(typeof ctx.args.flags.db === 'string' ? ctx.args.flags.db : DEMO_DB);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
  const logger = createLogger({ level: 'warn', write: (l) => ctx.stderr.write(l) });
  const emu = await startEmulator({ seed: 'demo', clockMode: 'real' });
  const client = createHttpClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, concurrency: 8 });
  const store = openStore(dbPath);
  const say = (s = '') => ctx.say(s);
  try {
    say(`wbsync demo — the emulator is serving a demo workspace at ${emu.baseUrl}`);
    const pass = await runPass({ client, store, logger }, { full: true });
    say(`\n1. Full sync into ${dbPath} (snapshot ${pass.snapshot}, ${pass.requests} requests, ${pass.durationMs} ms)`);
    const mirrored = viewRowCounts(store.db, REPORTING_VIEWS);
    say(`   mirrored: ${Object.entries(mirrored).map(([k, n]) => `${n} ${k}`).join(', ')}`);

    say('\n2. Reporting queries (plain SQL over the views; all five in docs/reporting.md)');
    const answers: Record<string, Record<string, unknown>[]> = {};
    for (const q of REPORTING_QUERIES.slice(0, 3)) {
      answers[q.title] = runReportingQuery(store.db, q.sql);
      say(`\n   ${q.title}:\n${table(answers[q.title])}`);
    }

    const victim = store.stateAt()!.modules().find((m) => m.name === DEMO_MODULE)!;
    const records = store.stateAt()!.records(victim.id).length;
    say(`\n3. Someone deletes the "${shown(victim.name)}" module (${records} records and sub-records)…`);
    await client.deleteModule(victim.id);
    const attribution = ConfigSchema.parse({}).restore.attribution;
    const restored = await restoreModule({ client, store, logger }, { moduleId: victim.id, attribution });
    say(`   …and wbsync restores it from snapshot ${restored.snapshot}: new module id ${restored.moduleId}`);
    say(`   restored: ${Object.entries(restored.counts).map(([k, n]) => `${n} ${k}`).join(', ')}`);
    if (restored.notRestored.length) say(`   not restorable: ${restored.notRestored.map((n) => JSON.stringify(n)).join('; ')}`);

    const diff = await runDiff({ client, store, readLive: readModuleLive }, { moduleId: victim.id, attribution });
    say(`\n4. ${commandLine(['wbsync', 'diff', '--module', victim.id])}: ${diff.differences === 0 ? 'no differences' : `${diff.differences} difference(s)`}`);

    // 5. the partial bad day: a bulk overwrite, one later edit by hand, undone in place
    const board = store.stateAt()!.modules().find((m) => m.name === ROLLBACK_MODULE)!;
    const good = store.latestCompleteSnapshot()!;
    const status = store.stateAt()!.columns(board.id).find((c) => c.name === ROLLBACK_COLUMN)!;
    const cells = store.stateAt()!.cells(board.id).filter((c) => c.columnId === status.id && c.value !== 'Rejected');
    say(`\n5. An import sets "${ROLLBACK_COLUMN}" to Rejected on ${cells.length} rows of "${shown(board.name)}"…`);
    for (const c of cells) await client.updateValue(c.id, { value: 'Rejected' });
    await runPass({ client, store, logger }, {});
    const fixed = cells[0]!;
    await client.updateValue(fixed.id, { value: 'Offer sent' });
    say(`   …someone sets one row back by hand ("Offer sent"), and ${commandLine(['wbsync', 'rollback', '--module', board.id, '--to-snapshot', good, '--column', ROLLBACK_COLUMN])}:`);
    const rolled = await rollback({ client, store, logger, readLive: readModuleLive }, { moduleId: board.id, toSnapshot: good, columns: [ROLLBACK_COLUMN], attribution, pauseAutomations: true });
    say(`   put back ${rolled.writes.length} value(s) in place; kept ${rolled.conflicts.length} later edit(s) as conflicts:`);
    for (const c of rolled.conflicts) say(`     ${shown(c.label)}: now ${JSON.stringify(c.live)} (the import left ${JSON.stringify(c.after)}, the snapshot had ${JSON.stringify(c.base)})`);
    const undone = rolled.writes.length === cells.length - 1 && rolled.conflicts.length === 1;

    say(`\n   Look at it in a browser: ${commandLine(['wbsync', 'ui', '--db', dbPath])}   (then open http://127.0.0.1:9465/ui/)`);
    say(`   Prove it restores: ${commandLine(['wbsync', 'drill', '--db', dbPath])}`);
    say('\n6. Point wbsync at your own service:');
    say('   export WBSYNC_BASE_URL=https://boards.example.com');
    say('   export WBSYNC_API_KEY_FILE=./wbsync.key   # a file holding your Personal Integration Token');
    say('   wbsync sync --full && wbsync daemon');
    if (ctx.json) {
      ctx.emit({
        db: dbPath,
        snapshot: pass.snapshot,
        mirrored,
        queries: answers,
        deletedModuleId: victim.id,
        restoredModuleId: restored.moduleId,
        restoredCounts: restored.counts,
        differences: diff.differences,
        rollback: { moduleId: board.id, snapshot: rolled.snapshot, putBack: rolled.writes.length, conflicts: rolled.conflicts.length },
      });
    }
    return diff.differences === 0 && undone ? 0 : 1;
  } finally {
    store.close();
    await client.close();
    await emu.stop();
  }
}
