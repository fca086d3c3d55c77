// `wbsync daemon`: scheduled passes until SIGTERM/SIGINT, with /healthz and /metrics.

import { EXIT_CODES } from '../../domain/errors.js';
import type { Command } from '../command.js';

export const daemonCommand: Command = {
  name: 'daemon',
  summary: 'run incremental and full passes on the schedule, with /healthz and /metrics',
  usage: 'wbsync daemon',
  description: [
    'Runs until SIGTERM or SIGINT. Passes follow schedule.incremental and schedule.full (cron; a',
    'sixth, leading seconds field is allowed). Passes never overlap: a tick during a pass is skipped',
    '(logged "tick skipped: a pass is running"), except that one full tick arriving during an',
    'incremental pass is queued and runs as soon as that pass ends. At start, an empty database',
    'gets a full pass at once; otherwise an incremental pass catches up at once.',
    '',
    'One daemon per database (<db>.daemon.lock); a second daemon exits 2 naming the first. Each pass',
    'takes the write lock (<db>.lock) for its length only: `wbsync sync`, prune, rollback, restore and',
    'erase run between passes (they wait for the pass in flight) and a pass waits for them. The',
    'locks are held by the kernel: a killed holder never leaves one taken.',
    '',
    'GET /healthz on daemon.listen: 200 while the last pass succeeded within three incremental',
    'intervals, else 503 with a reason ("authentication failed", "service unreachable", ...).',
    'GET /metrics: Prometheus text, or OpenMetrics when the scraper asks for it — process and Node',
    'runtime metrics and the wbsync_* families (deploy/prometheus has alert rules, deploy/grafana a',
    'dashboard). Logs: JSON lines on stderr, one "pass finished" line per pass.',
    '',
    'On SIGTERM/SIGINT the pass in flight stops after its current module (its snapshot is marked',
    'failed; the next pass redoes the work), the database is closed and the lock released, within',
    '10 seconds. A failed pass never stops the daemon: it is logged and retried on the next tick.',
    '',
    'The key is read once, at start. If it is rotated or revoked, /healthz answers 503',
    '"authentication failed": put the new key in WBSYNC_API_KEY or the key file, then restart the',
    'daemon. A service outage (including the deployed service answering 401 while its database is',
    'down) is reported as "service unreachable" and heals by itself.',
  ].join('\n'),
  examples: [
    'WBSYNC_BASE_URL=https://boards.example.com WBSYNC_API_KEY_FILE=/run/secrets/wbsync-key wbsync daemon',
    'curl -s http://127.0.0.1:9464/healthz',
  ],
  flags: [],
  async run(ctx) {
    // loaded here: the metrics library costs every other command's start ~50 ms for nothing
    const { runDaemon } = await import('../../daemon/daemon.js');
    const summary = await runDaemon({ loaded: ctx.config(), logger: ctx.logger(), signal: ctx.signal });
    if (ctx.json) ctx.emit({ stopped: true, ...summary });
    return EXIT_CODES.ok;
  },
};
