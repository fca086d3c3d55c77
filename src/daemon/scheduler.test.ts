import { describe, expect, it } from 'vitest';
import { createScheduler, type CronPort, type PassKind } from './scheduler.js';

function manualCron(): CronPort & { fire(name: string): void; stopped: string[] } {
  const ticks = new Map<string, () => void>();
  const stopped: string[] = [];
  return {
    stopped,
    schedule(_expr, name, onTick) {
      ticks.set(name, onTick);
      return { stop: () => stopped.push(name) };
    },
    fire(name) {
      ticks.get(name)?.();
    },
  };
}

function recordingLogger() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** A runner whose passes end when the test says so. */
function gatedRunner() {
  const started: PassKind[] = [];
  const gates: Array<() => void> = [];
  return {
    started,
    run: (kind: PassKind) => {
      started.push(kind);
      return new Promise<void>((resolve) => gates.push(resolve));
    },
    finishNext: async () => {
      gates.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    },
  };
}

describe('scheduler', () => {
  it('should skip an incremental tick while a pass is running, and log it', async () => {
    const cron = manualCron();
    const log = recordingLogger();
    const runner = gatedRunner();
    const s = createScheduler({ incremental: '* * * * *', full: '0 3 * * *', run: runner.run, logger: log, cron });
    s.start();
    cron.fire('wbsync-incremental');
    cron.fire('wbsync-incremental');
    expect(runner.started).toEqual(['incremental']);
    expect(log.lines.filter((l) => l.msg === 'tick skipped: a pass is running')).toHaveLength(1);
    await runner.finishNext();
    expect(s.running()).toBeNull();
    cron.fire('wbsync-incremental');
    expect(runner.started).toEqual(['incremental', 'incremental']);
  });

  it('should queue exactly one full tick during an incremental pass and run it right after', async () => {
    const cron = manualCron();
    const log = recordingLogger();
    const runner = gatedRunner();
    const s = createScheduler({ incremental: '* * * * *', full: '0 3 * * *', run: runner.run, logger: log, cron });
    s.start();
    cron.fire('wbsync-incremental');
    expect(s.trigger('full', 'tick')).toBe('queued');
    expect(s.trigger('full', 'tick')).toBe('skipped');
    await runner.finishNext();
    expect(runner.started).toEqual(['incremental', 'full']);
    expect(s.running()?.kind).toBe('full');
    await runner.finishNext();
    expect(runner.started).toEqual(['incremental', 'full']);
  });

  it('should skip (not queue) any tick during a full pass', async () => {
    const runner = gatedRunner();
    const s = createScheduler({ incremental: 'x', full: 'y', run: runner.run, logger: recordingLogger(), cron: manualCron() });
    s.trigger('full', 'start');
    expect(s.trigger('full', 'tick')).toBe('skipped');
    expect(s.trigger('incremental', 'tick')).toBe('skipped');
    await runner.finishNext();
    expect(runner.started).toEqual(['full']);
  });

  it('should never run two passes at once under a burst of ticks', async () => {
    let inFlight = 0;
    let most = 0;
    const s = createScheduler({
      incremental: 'x',
      full: 'y',
      logger: recordingLogger(),
      cron: manualCron(),
      run: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight -= 1;
      },
    });
    for (let i = 0; i < 50; i++) {
      s.trigger(i % 7 === 0 ? 'full' : 'incremental', 'burst');
      await new Promise((r) => setTimeout(r, 0));
    }
    await s.idle();
    expect(most).toBe(1);
  });

  it('should stop ticking on stop(), drop a queued full pass, and let idle() wait for the pass in flight', async () => {
    const cron = manualCron();
    const runner = gatedRunner();
    const s = createScheduler({ incremental: 'x', full: 'y', run: runner.run, logger: recordingLogger(), cron });
    s.start();
    cron.fire('wbsync-incremental');
    cron.fire('wbsync-full'); // queued
    s.stop();
    expect(cron.stopped.sort()).toEqual(['wbsync-full', 'wbsync-incremental']);
    cron.fire('wbsync-incremental');
    let idle = false;
    const waiting = s.idle().then(() => (idle = true));
    await new Promise((r) => setTimeout(r, 0));
    expect(idle).toBe(false);
    await runner.finishNext();
    await waiting;
    expect(runner.started).toEqual(['incremental']);
  });

  it('should survive a runner that throws', async () => {
    const log = recordingLogger();
    let calls = 0;
    const s = createScheduler({
      incremental: 'x',
      full: 'y',
      logger: log,
      cron: manualCron(),
      run: async () => {
        calls += 1;
        throw new Error('boom');
      },
    });
    s.trigger('incremental', 'a');
    await s.idle();
    s.trigger('incremental', 'b');
    await s.idle();
    expect(calls).toBe(2);
    expect(log.lines.filter((l) => l.level === 'error')).toHaveLength(2);
  });
});
