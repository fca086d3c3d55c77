// The configuration schema is the documentation: every key is described here, and the README's
// configuration table is checked against it by a test.

import cron from 'node-cron';
import { z } from 'zod';

const cronExpression = z
  .string()
  .refine((s) => cron.validate(s), { message: 'not a valid cron expression (5 fields, or 6 with seconds)' });

const hostPort = z
  .string()
  .regex(/^[^:\s]+:\d{1,5}$/, { message: 'expected host:port, e.g. 127.0.0.1:9464' })
  .refine((s) => Number(s.split(':')[1]) <= 65535, { message: 'port must be 0-65535' });

const workspaceId = z.string().min(1);

export const ConfigSchema = z.strictObject({
  baseUrl: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL such as https://boards.example.com' })
    .optional()
    .describe('Service root; requests go to ${baseUrl}/api/... (env WBSYNC_BASE_URL).'),
  apiKeyFile: z
    .string()
    .min(1)
    .optional()
    .describe('File holding the Personal Integration Token, for Docker/Kubernetes secrets (env WBSYNC_API_KEY_FILE). The key itself is only ever read from WBSYNC_API_KEY or this file.'),
  db: z.string().min(1).default('./data/wbsync.db').describe('The snapshot database file (env WBSYNC_DB).'),
  workspaces: z
    .strictObject({
      include: z.array(workspaceId).default([]).describe('Workspace ids to mirror; empty means every workspace the key can see.'),
      exclude: z.array(workspaceId).default([]).describe('Workspace ids never to mirror.'),
    })
    .prefault({})
    .describe('Which workspaces to mirror.'),
  http: z
    .strictObject({
      concurrency: z.number().int().min(1).max(256).default(8).describe('Requests in flight.'),
      timeoutMs: z.number().int().min(100).max(600_000).default(30_000).describe('Per-request timeout in milliseconds.'),
      retries: z.number().int().min(0).max(20).default(5).describe('Retries of idempotent requests, with exponential backoff and full jitter.'),
    })
    .prefault({})
    .describe('HTTP client settings.'),
  schedule: z
    .strictObject({
      incremental: cronExpression.default('*/5 * * * *').describe('Cron expression for incremental passes of `daemon`.'),
      full: cronExpression.default('0 3 * * *').describe('Cron expression for full passes of `daemon`.'),
    })
    .prefault({})
    .describe('Daemon schedule.'),
  freshness: z
    .strictObject({
      maxStalenessMinutes: z
        .number()
        .min(0.05)
        .max(43_200)
        .default(360)
        .describe(
          'Every part of the mirror (each module with everything in it; each workspace\'s members, automations and grants) is read in full again at least this often, so changes the service leaves no trace of (amendment edits, automation changes, unlogged grants...) reach the mirror within it. Incremental passes spread the re-reading: about one full pass per window. /healthz turns unhealthy past it.',
        ),
    })
    .prefault({})
    .describe('How stale the mirror may get.'),
  daemon: z
    .strictObject({
      listen: hostPort.default('127.0.0.1:9464').describe('host:port of the /healthz and /metrics endpoint.'),
    })
    .prefault({})
    .describe('Daemon settings.'),
  log: z
    .strictObject({
      level: z
        .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info')
        .describe('pino log level; logs are JSON lines on stderr (env WBSYNC_LOG_LEVEL).'),
    })
    .prefault({})
    .describe('Logging.'),
  restore: z
    .strictObject({
      attribution: z
        .string()
        .max(500)
        .default('Restored by wbsync — originally by {author} at {createdAt}.')
        .describe('Line added to every restored amendment; {author} and {createdAt} are filled in; empty to add nothing.'),
    })
    .prefault({})
    .describe('Restore settings.'),
});

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
