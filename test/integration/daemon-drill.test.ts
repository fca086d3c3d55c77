// Scheduled restore drills through a real daemon (child process): the deployed service (observed)
// accepted a rating of "abc" that the published interface refuses, so a drill into the spec emulator
// fails — wbsync_last_drill_ok 0, one drill_failed alert naming the cell however often it fails —
// and, once the value is fixed and a full pass has run, passes again. The configured service gets
// nothing but GETs throughout.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/types.js';
import { api, dumpOf, tempDir } from '../helpers/harness.js';
import { eventually, getJson, killAll, startDaemon, writeConfig, type DaemonChild, type LogLine } from './daemon-harness.js';

/** No drill started or ended for this long: the daemon's drills have stalled. */
const DRILL_STALL_MS = 90_000;

/**
 * The first daemon log line `pred` takes, waiting as long as drills keep coming: a drill's time is
 * the machine's (a child process restoring the demo seed takes 3 s idle, 30 s under heavy load),
 * so the wait fails when the drills stall (none started or ended for DRILL_STALL_MS), not after a
 * fixed time that some number of drills is assumed to fit in.
 */
async function whileDrilling(daemon: DaemonChild, pred: (l: LogLine) => boolean, what: string): Promise<LogLine> {
  let last = Date.now();
  for (let from = 0; ; ) {
    for (; from < daemon.lines.length; from++) {
      const l = daemon.lines[from]!;
      if (typeof l.msg === 'string' && l.msg.startsWith('drill ')) last = Date.now();
      if (pred(l)) return l;
    }
    if (daemon.proc.exitCode !== null || daemon.proc.signalCode !== null) throw new Error(`daemon exited before ${what}; stderr:\n${daemon.stderr().slice(-3000)}`);
    if (Date.now() - last > DRILL_STALL_MS) throw new Error(`no drill started or ended for ${DRILL_STALL_MS / 1000} s waiting for ${what}; stderr:\n${daemon.stderr().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function receiver(): Promise<{ url: string; alerts: Array<Record<string, any>>; close(): Promise<void> }> {
  const alerts: Array<Record<string, any>> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      alerts.push(JSON.parse(body) as Record<string, any>);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    alerts,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const metric = (text: string, name: string): number | null => {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
};

describe('daemon: scheduled restore drills', () => {
  const { dir, cleanup } = tempDir('wbsync-daemon-drill-');
  let emu: RunningEmulator | undefined;
  afterEach(async () => {
    await killAll();
    await emu?.stop();
    emu = undefined;
  });
  afterAll(() => cleanup());

  // the bound of the whole test only guards against a hang: the waits follow the drills (whileDrilling)
  it('sets the metrics, fires drill_failed once naming the cell, and passes again once fixed', { timeout: 300_000 }, async () => {
    emu = await startEmulator({ dialect: 'observed', seed: 'demo', clockMode: 'real' });
    const d = dumpOf(emu);
    const column = d.columns.find((c) => c.type === 'rating' && !c.isDeleted)!;
    const record = d.records.find((r) => r.module === column.module && !r.parentRecord && !r.isArchived && !r.isDeleted)!;
    const body = { record: record._id, column: column._id, value: 'abc' };
    expect((await api(emu, 'POST', '/record-values', body)).status).toBeLessThan(300); // the deployed service takes it
    emu.requestLog.clear();

    const hook = await receiver();
    try {
      const config = writeConfig(dir, 'drill', {
        db: join(dir, 'drill.db'),
        incremental: '*/1 * * * * *',
        full: '*/3 * * * * *',
        extra: { drill: { schedule: '*/2 * * * * *', dialect: 'spec' }, alerts: { webhooks: [{ url: hook.url, format: 'json' }] } },
      });
      const daemon = startDaemon(config, emu.baseUrl, emu.apiKey);
      const port = await daemon.port();
      expect(metric((await getJson(port, '/metrics')).text, 'wbsync_last_drill_ok')).toBeNull(); // none yet: absent, not 0
      // two failed drills, one alert
      let failed = 0;
      await whileDrilling(daemon, (l) => l.msg === 'drill failed' && ++failed === 2, 'two failed drills');
      const failedLine = daemon.lines.find((l) => l.msg === 'drill failed')!;
      expect(JSON.stringify(failedLine.what)).toContain(`${record.name as string} · ${column.name as string}`);
      const text = (await getJson(port, '/metrics')).text;
      expect(metric(text, 'wbsync_last_drill_ok')).toBe(0);
      expect(metric(text, 'wbsync_last_drill_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 120);
      expect(metric(text, 'wbsync_last_drill_duration_seconds')).toBeGreaterThan(0);
      await eventually(() => hook.alerts.some((a) => a.event === 'drill_failed'), 10_000, 'the drill_failed alert');
      const alerts = hook.alerts.filter((a) => a.event === 'drill_failed');
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.summary).toMatch(/restore drill of snapshot \d+ failed/);
      expect(JSON.stringify(alerts[0]!.details.what)).toMatch(new RegExp(`cell .*${record.name as string} · ${column.name as string}.*abc`));

      // fixed on the service: after the next full pass the next drill passes
      expect((await api(emu, 'POST', '/record-values', { ...body, value: '3' })).status).toBeLessThan(300);
      const fixedAt = emu.requestLog.total();
      await whileDrilling(daemon, (l) => l.msg === 'drill passed', 'a passing drill');
      await eventually(async () => metric((await getJson(port, '/metrics')).text, 'wbsync_last_drill_ok') === 1, 10_000, 'wbsync_last_drill_ok 1');
      expect(hook.alerts.filter((a) => a.event === 'drill_failed')).toHaveLength(1);
      // the configured service: GETs only (the one write is this test's own fix)
      const writes = emu.requestLog.entries().filter((e) => e.method !== 'GET');
      expect(writes).toHaveLength(1);
      expect(emu.requestLog.entries().slice(fixedAt).filter((e) => e.method !== 'GET')).toEqual([]);
      daemon.proc.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    } finally {
      await hook.close();
    }
  });
});
