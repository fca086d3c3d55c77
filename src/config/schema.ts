// The configuration schema is the documentation: every key is described here, and the configuration
// table of docs/configuration.md is checked against it by a test (env.ts names each key's variable).

import cron from 'node-cron';
import { z } from 'zod';

const cronExpression = z
  .string()
  .refine((s) => cron.validate(s), { message: 'not a valid cron expression (5 fields, or 6 with seconds)' });

const hostPort = z
  .string()
  .regex(/^[^:\s]+:\d{1,5}$/, { message: 'expected host:port, e.g. 127.0.0.1:9464' })
  .refine((s) => !/^[^:\s]+:\d{1,5}$/.test(s) || Number(s.split(':')[1]) <= 65535, { message: 'port must be 0-65535' });

const workspaceId = z.string().min(1);

const keepCount = z.number().int().min(0).optional();

/** Every event an alert can carry (contract: the alert payload's `event`). */
export const ALERT_EVENTS = ['pass_failed', 'recovered', 'auth_failed', 'stale', 'tripwire', 'tripwire_recovered', 'offsite_failed', 'drill_failed'] as const;
export type AlertEventName = (typeof ALERT_EVENTS)[number];

export const ConfigSchema = z.strictObject({
  baseUrl: z
    .url({ protocol: /^https?$/, message: 'expected an http(s) URL such as https://boards.example.com' })
    .optional()
    .describe('Service root; requests go to ${baseUrl}/api/....'),
  apiKeyFile: z
    .string()
    .min(1)
    .optional()
    .describe('File holding the Personal Integration Token, for Docker/Kubernetes secrets. The key itself is only ever read from WBSYNC_API_KEY or this file.'),
  db: z.string().min(1).default('./data/wbsync.db').describe('The snapshot database file.'),
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
        .describe('pino log level; logs are JSON lines on stderr.'),
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
  retention: z
    .strictObject({
      keepLast: keepCount.describe('Keep the N newest snapshots (restic --keep-last).'),
      keepHourly: keepCount.describe('Keep the newest snapshot of each of the N newest hours that have one (UTC).'),
      keepDaily: keepCount.describe('Keep the newest snapshot of each of the N newest days that have one (UTC).'),
      keepWeekly: keepCount.describe('Keep the newest snapshot of each of the N newest ISO weeks that have one.'),
      keepMonthly: keepCount.describe('Keep the newest snapshot of each of the N newest months that have one.'),
      keepYearly: keepCount.describe('Keep the newest snapshot of each of the N newest years that have one.'),
      keepWithin: z
        .string()
        .regex(/^(?:\d+y)?(?:\d+m)?(?:\d+d)?(?:\d+h)?$/, { message: 'expected a duration such as 30d, 12h or 1y6m' })
        .refine((s) => s.length > 0, { message: 'expected a duration such as 30d, 12h or 1y6m' })
        .optional()
        .describe('Keep every snapshot taken within this long before now (restic syntax: 1y6m, 30d, 12h).'),
      activityDays: z.number().int().min(1).optional().describe('Delete activity rows older than this many days when pruning; unset keeps them all (they are the audit trail the service itself forgets).'),
    })
    .prefault({})
    .describe('Retention policy: `wbsync prune` without flags uses it, and the daemon prunes after each full pass when any rule is set. Never forgotten: the latest snapshot, held ones, and those an unfinished restore or rollback works from.'),
  alerts: z
    .strictObject({
      webhooks: z
        .array(
          z.strictObject({
            url: z.url({ protocol: /^https?$/, message: 'expected an http(s) URL' }).describe('Where to POST; treated as a secret (never logged).'),
            format: z.enum(['json', 'slack']).default('json').describe('json: the alert document; slack: {"text": ...} for Slack-compatible incoming webhooks.'),
            events: z.array(z.enum(ALERT_EVENTS)).min(1).optional().describe('Only these events (default: all).'),
          }),
        )
        .default([])
        .describe(`Webhooks that receive a POST per alert: ${ALERT_EVENTS.join(', ')}. Retried with a timeout, never blocking a pass.`),
      healthchecksUrl: z
        .url({ protocol: /^https?$/, message: 'expected an http(s) URL' })
        .optional()
        .describe('A dead-man\'s-switch ping URL (healthchecks.io style): <url>/start when a daemon pass starts, <url> on success, <url>/fail on failure.'),
      afterFailures: z.number().int().min(1).max(1000).default(2).describe('Consecutive failed passes before pass_failed is sent (once per failure episode; recovered follows).'),
      timeoutMs: z.number().int().min(100).max(60_000).default(5_000).describe('Per-attempt timeout of an alert delivery.'),
    })
    .prefault({})
    .describe('Alerts that reach a person (daemon).'),
  tripwire: z
    .strictObject({
      enabled: z.boolean().default(true).describe('Compare each pass with the one before, per module, and raise a tripwire alert on mass changes.'),
      recordsPercent: z.number().min(0).max(100).default(20).describe("Records archived or deleted in one pass, as a share of the module's records, above which it trips."),
      minRecords: z.number().int().min(1).default(10).describe('…and at least this many records.'),
      cellsPercent: z.number().min(0).max(100).default(30).describe("Cells cleared or changed in one pass, as a share of a column's cells (a deleted column clears all of them), above which it trips."),
      minCells: z.number().int().min(1).default(20).describe('…and at least this many cells.'),
      amendmentsPercent: z.number().min(0).max(100).default(20).describe("Amendments deleted in one pass, as a share of the module's amendments, above which it trips."),
      minAmendments: z.number().int().min(1).default(10).describe('…and at least this many amendments.'),
    })
    .prefault({})
    .describe('The tripwire for mass changes: it holds the last snapshot before them from pruning (30 days, or until `wbsync snapshots --release N`) and names the command that undoes them. A deleted module always trips it.'),
  offsite: z
    .strictObject({
      bucket: z.string().min(3).optional().describe('S3 bucket for encrypted offsite copies; unset: no offsite copies. Credentials come from the standard AWS environment variables or files, never from here.'),
      prefix: z.string().default('wbsync/').describe('Key prefix inside the bucket (one per database, e.g. wbsync/acme/).'),
      endpoint: z.url({ protocol: /^https?$/, message: 'expected an http(s) URL' }).optional().describe('S3-compatible endpoint (MinIO, R2, Ceph...); unset: AWS.'),
      region: z.string().min(1).default('us-east-1').describe('Region of the bucket.'),
      forcePathStyle: z.boolean().default(false).describe('Path-style URLs (most S3-compatible stores want true).'),
      timeoutSeconds: z
        .number()
        .min(1, { message: 'expected at least 1 (seconds)' })
        .max(3600, { message: 'expected at most 3600 (seconds)' })
        .default(60)
        .describe('Seconds a connection to the store may take to open, or may stay silent (no byte either way), before the request fails; 3 attempts, then the push fails naming the endpoint. A store that stops answering never hangs a push; nor does one that trickles: a transfer may also take no longer than this plus its size at 16 KiB/s.'),
      recipients: z
        .array(z.string().regex(/^age1[02-9ac-hj-np-z]{58}$/, { message: 'expected an age public key (age1…, what age-keygen prints as "public key")' }))
        .default([])
        .describe('age public keys the copies are encrypted to. The daemon holds only these: it cannot read what it wrote; offsite fetch with --identity decrypts at recovery time.'),
      afterFullPass: z.boolean().default(true).describe('Push a copy after each full pass of the daemon.'),
      retention: z
        .strictObject({
          keepLast: keepCount.describe('Keep the N newest copies.'),
          keepDaily: keepCount.describe('Keep the newest copy of each of the N newest days.'),
          keepWeekly: keepCount.describe('Keep the newest copy of each of the N newest ISO weeks.'),
          keepMonthly: keepCount.describe('Keep the newest copy of each of the N newest months.'),
          keepYearly: keepCount.describe('Keep the newest copy of each of the N newest years.'),
        })
        .prefault({})
        .describe('Which remote copies to keep after a push (restic semantics, as prune); unset: keep all. The newest is always kept.'),
    })
    .prefault({})
    .describe('Encrypted offsite copies in S3-compatible storage.'),
  ui: z
    .strictObject({
      tokenFile: z
        .string()
        .min(1)
        .optional()
        .describe('File holding a bearer token for the web console (at least 16 characters of a random-looking token, e.g. `openssl rand -hex 32`; a guessable one is refused); required to listen beyond loopback (requests without it are refused). The token is never logged or shown. A warning is logged when others may read the file.'),
      tls: z
        .strictObject({
          certFile: z.string().min(1).describe('PEM certificate (with its chain): the console is served over HTTPS, by `wbsync ui` and on daemon.listen (then /healthz and /metrics are HTTPS too). Set with ui.tls.keyFile.'),
          keyFile: z.string().min(1).describe('PEM private key of ui.tls.certFile (keep it mode 0600: a warning is logged when others may read it).'),
        })
        .optional()
        .describe('HTTPS for the console, on `wbsync ui` and on daemon.listen (then /healthz and /metrics are HTTPS too).'),
      behindTlsProxy: z
        .boolean()
        .default(false)
        .describe('A TLS-terminating reverse proxy sits in front of the console: listening beyond loopback over plain HTTP is allowed, and the session cookie is marked Secure. Leave false unless the proxy is really there.'),
      hosts: z
        .array(z.string().regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/, { message: 'expected a host name or address, optionally with :PORT' }))
        .default([])
        .describe('Further names the console answers to besides loopback and its listen address (e.g. the name people reach it by through a proxy, `backup.example.com`); any other Host header is refused, against DNS rebinding.'),
      sessionHours: z.number().int().min(1).max(720).default(12).describe('Hours a sign-in lasts; the server forgets the session after that (and on sign-out or restart).'),
    })
    .prefault({})
    .describe('The read-only web console (`wbsync ui`, and the daemon under /ui/).'),
  drill: z
    .strictObject({
      schedule: cronExpression.default('30 4 * * 0').describe('Cron expression for restore drills in `daemon` (after a full pass; weekly by default).'),
      dialect: z.enum(['observed', 'spec']).default('observed').describe('Dialect of the bundled emulator a drill restores into.'),
    })
    .prefault({})
    .describe('Restore drills: restore into a scratch service, read it back and compare.'),
  fleet: z
    .strictObject({
      postgresUrlFile: z
        .string()
        .min(1)
        .optional()
        .describe('File holding the fleet\'s Postgres URL (postgres://USER:PASSWORD@HOST:PORT/DB; it holds a password, so it is never a flag and never logged). Required by `wbsync fleet ...`.'),
      keyDir: z
        .string()
        .min(1)
        .default('./keys')
        .describe('Folder of tenant keys: a worker reads tenant NAME\'s key from <keyDir>/NAME (a Kubernetes Secret mounted as a folder, a systemd credentials directory). The registry in Postgres holds no secret.'),
      listen: hostPort.default('127.0.0.1:9465').describe('host:port of a fleet worker\'s /healthz and /metrics (labelled by tenant).'),
      heartbeatSeconds: z.number().min(0.2).max(300).default(10).describe('How often a fleet worker writes its heartbeat and looks for tenants without a home.'),
      workerTtlSeconds: z.number().min(1).max(86_400).default(60).describe('A worker whose heartbeat is older than this is shown as gone; it keeps its tenants until it comes back or fleet adopt moves them (docs/fleet.md).'),
      budget: z
        .strictObject({
          requestsPerSecond: z.number().min(1).max(100_000).default(20).describe('Requests per second to one service base URL, shared by every worker of the fleet through Postgres.'),
          inFlight: z.number().int().min(1).max(10_000).default(16).describe('Requests in flight to one service base URL, shared by every worker (a killed worker\'s slots expire after slotTtlSeconds).'),
          slotTtlSeconds: z.number().min(1).max(3_600).default(120).describe('How long an in-flight slot is held at most: a worker killed mid-request frees its slots after this.'),
        })
        .prefault({})
        .describe('The shared budget per service base URL (the default for a service; `wbsync fleet budget` sets one service\'s own).'),
      copyRecipient: z
        .string()
        .regex(/^age1[02-9ac-hj-np-z]{58}$/, { message: 'expected an age public key (age1…)' })
        .optional()
        .describe('age public key the fleet copies of tenant databases are encrypted to (distinct from offsite.recipients).'),
      copyIdentityFile: z
        .string()
        .min(1)
        .optional()
        .describe('File holding the fleet\'s age identity (a secret, mode 0600): workers decrypt fleet copies with it when they take a tenant over.'),
      copies: z
        .strictObject({
          bucket: z.string().min(3).optional().describe('S3 bucket of the fleet copies (a tenant\'s whole database, encrypted to fleet.copyRecipient) that move tenants between workers; unset: tenants cannot move. Credentials come from the standard AWS environment variables or files, never from here.'),
          prefix: z.string().default('wbsync-fleet/').describe('Key prefix inside the bucket; the copies of tenant NAME are under PREFIX/fleet/NAME/.'),
          endpoint: z.url({ protocol: /^https?$/, message: 'expected an http(s) URL' }).optional().describe('S3-compatible endpoint (MinIO, R2, Ceph...); unset: AWS.'),
          region: z.string().min(1).default('us-east-1').describe('Region of the bucket.'),
          forcePathStyle: z.boolean().default(false).describe('Path-style URLs (most S3-compatible stores want true).'),
          everyMinutes: z.number().min(0).max(10_080).default(60).describe('A tenant\'s home writes a fleet copy of its database between passes when its newest is older than this (what fleet adopt brings up if the worker is lost); 0: only when a tenant moves.'),
          keep: z.number().int().min(1).max(1000).default(3).describe('Fleet copies kept per tenant (the newest); older ones are deleted after a new one is written.'),
        })
        .prefault({})
        .describe('Where fleet copies go (object storage the workers share).'),
    })
    .prefault({})
    .describe('A fleet of workers coordinated through Postgres (`wbsync fleet ...`, docs/fleet.md).'),
});

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
