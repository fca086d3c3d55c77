// The fleet's deploy files, each checked by a real tool, then by the fields that tie it to wbsync:
//  - deploy/kubernetes/fleet.yaml: every object against the Kubernetes OpenAPI schemas
//    (kubernetes-models); its ConfigMap loaded by wbsync's own loader, each path in it where a
//    Secret or the claim is mounted; the worker's id its pod name; Postgres a Service + StatefulSet;
//  - deploy/compose/fleet.yaml: `docker-compose config` (the Compose schema, no engine needed); each
//    worker's environment a configuration wbsync accepts, pointing where its secrets are mounted.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import { tempDir } from '../helpers/harness.js';

const DEPLOY = resolve(import.meta.dirname, '../../deploy');

function tool(name: string, pkg: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  if (found.status !== 0) throw new Error(`${name} is not installed: apt-get install -y ${pkg} (the README's test command brings it)`);
  return found.stdout.trim();
}

describe('deploy/kubernetes/fleet.yaml', () => {
  type Doc = { kind: string; apiVersion: string; metadata: { name: string } };
  const docs = parseAllDocuments(readFileSync(join(DEPLOY, 'kubernetes/fleet.yaml'), 'utf8')).map((d) => d.toJS() as Doc);
  const named = <T>(kind: string, name: string): T => docs.find((d) => d.kind === kind && d.metadata.name === name) as T;

  it('every object is valid against the Kubernetes schemas', () => {
    expect(docs.map((d) => `${d.apiVersion} ${d.kind} ${d.metadata.name}`)).toEqual([
      'v1 ConfigMap wbsync-fleet-config',
      'v1 Service wbsync-fleet',
      'apps/v1 StatefulSet wbsync-fleet',
      'v1 Service wbsync-postgres',
      'apps/v1 StatefulSet wbsync-postgres',
    ]);
    const models: Record<string, (o: never) => { validate(): void }> = {
      ConfigMap: (o) => new ConfigMap(o),
      Service: (o) => new Service(o),
      StatefulSet: (o) => new StatefulSet(o),
    };
    for (const d of docs) expect(() => models[d.kind]!(d as never).validate(), `${d.kind} ${d.metadata.name}`).not.toThrow();
    // and the validator would see a mistake
    const broken = structuredClone(named<StatefulSet>('StatefulSet', 'wbsync-fleet')) as unknown as { spec: { volumeClaimTemplates: Array<{ spec: { accessModes: unknown } }> } };
    broken.spec.volumeClaimTemplates[0]!.spec.accessModes = 'ReadWriteOnce';
    expect(() => new StatefulSet(broken as never).validate()).toThrow(/accessModes must be array/);
  });

  it('workers: a StatefulSet with a claim each, the worker id its pod name, every secret a mounted file where the configuration looks', () => {
    const ss = named<StatefulSet>('StatefulSet', 'wbsync-fleet');
    const spec = ss.spec!;
    expect(spec.replicas).toBeGreaterThanOrEqual(2);
    expect(spec.selector.matchLabels).toEqual(spec.template.metadata!.labels);
    const pod = spec.template.spec!;
    const c = pod.containers[0]!;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, fsGroup: 1000 });
    expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    const mount = (name: string): string => c.volumeMounts!.find((m) => m.name === name)!.mountPath;
    const volume = (name: string) => pod.volumes!.find((v) => v.name === name)!;
    const env = Object.fromEntries(c.env!.filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));

    // `wbsync fleet worker --data <the claim> --id <the pod's name>`
    expect(spec.volumeClaimTemplates!.map((t) => [t.metadata!.name, t.spec!.accessModes])).toEqual([['data', ['ReadWriteOnce']]]);
    const args = c.args!;
    expect(args.slice(0, 2)).toEqual(['fleet', 'worker']);
    expect(args[args.indexOf('--data') + 1]).toBe(mount('data'));
    expect(args[args.indexOf('--id') + 1]).toBe('$(POD_NAME)');
    expect(c.env!.find((e) => e.name === 'POD_NAME')!.valueFrom!.fieldRef!.fieldPath).toBe('metadata.name');
    // no secret in the environment as a value; the S3 credentials from a Secret, as the SDK reads them
    expect(Object.keys(env).filter((k) => /KEY|PASSWORD|URL|SECRET/.test(k))).toEqual([]);
    expect(c.env!.filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name).sort()).toEqual(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);

    // the configuration: the ConfigMap's file, accepted by wbsync, every path where its Secret is mounted
    const cm = named<ConfigMap>('ConfigMap', 'wbsync-fleet-config');
    expect(volume('config').configMap!.name).toBe(cm.metadata!.name);
    expect(dirname(env.WBSYNC_CONFIG!)).toBe(mount('config'));
    const t = tempDir('wbsync-k8s-fleet-');
    try {
      const file = join(t.dir, basename(env.WBSYNC_CONFIG!));
      writeFileSync(file, cm.data![basename(env.WBSYNC_CONFIG!)]!);
      const { fleet } = loadConfig({}, { WBSYNC_CONFIG: file }).config;
      const secretFile = (path: string, volumeName: string): void => {
        expect(dirname(path), path).toBe(mount(volumeName));
        const s = volume(volumeName).secret!;
        expect(s.items?.[0]?.path ?? basename(path)).toBe(basename(path));
        expect(s.defaultMode! & 0o044).toBe(0o040); // readable by the fsGroup, not by others
      };
      secretFile(fleet.postgresUrlFile!, 'postgres-url');
      secretFile(fleet.copyIdentityFile!, 'fleet-identity');
      // the tenant keys: the whole Secret as a folder, one file per tenant
      expect(fleet.keyDir).toBe(mount('tenant-keys'));
      expect(volume('tenant-keys').secret!.items).toBeUndefined();
      expect(fleet.copies.bucket).toBeTruthy();
      expect(Number(fleet.listen.split(':')[1])).toBe(c.ports![0]!.containerPort);
      expect(fleet.listen.split(':')[0]).toBe('0.0.0.0');
    } finally {
      t.cleanup();
    }
    // the metrics Service selects the workers; probes on /healthz
    const svc = named<Service>('Service', 'wbsync-fleet');
    expect(ss.spec!.serviceName).toBe(svc.metadata!.name);
    expect(svc.spec!.selector).toEqual(spec.selector.matchLabels);
    expect(c.readinessProbe!.httpGet).toEqual({ path: '/healthz', port: c.ports![0]!.name });
  });

  it('Postgres: a StatefulSet on a claim behind the Service the URL names, its password a Secret file', () => {
    const ss = named<StatefulSet>('StatefulSet', 'wbsync-postgres');
    const svc = named<Service>('Service', 'wbsync-postgres');
    expect(svc.spec!.selector).toEqual(ss.spec!.selector.matchLabels);
    const c = ss.spec!.template.spec!.containers[0]!;
    expect(svc.spec!.ports![0]).toMatchObject({ port: 5432, targetPort: c.ports![0]!.name });
    expect(ss.spec!.volumeClaimTemplates![0]!.metadata!.name).toBe(c.volumeMounts!.find((m) => m.mountPath === '/var/lib/postgresql/data')!.name);
    const env = Object.fromEntries(c.env!.map((e) => [e.name, e.value]));
    expect(env).not.toHaveProperty('POSTGRES_PASSWORD');
    expect(dirname(env.POSTGRES_PASSWORD_FILE!)).toBe(c.volumeMounts!.find((m) => m.name === 'password')!.mountPath);
    // the header's URL names this Service, this user and database
    const header = readFileSync(join(DEPLOY, 'kubernetes/fleet.yaml'), 'utf8');
    expect(header).toContain(`postgres://${env.POSTGRES_USER}:PASSWORD@${svc.metadata!.name}:5432/${env.POSTGRES_DB}`);
  });
});

describe('deploy/compose/fleet.yaml', () => {
  const dir = join(DEPLOY, 'compose');
  const file = join(dir, 'fleet.yaml');
  const RECIPIENT = 'age19gv8z27czgh43e9nsee0u78ts02e64wuuee6yf5az8dsyg5r938st5s24l';

  it('passes docker-compose config (the Compose schema); the recipient is required, with a message', () => {
    const run = (env: Record<string, string>) => spawnSync(tool('docker-compose', 'docker-compose'), ['-f', file, 'config', '--quiet'], { cwd: dir, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
    const ok = run({ WBSYNC_FLEET_COPY_RECIPIENT: RECIPIENT });
    expect(ok.status, ok.stderr).toBe(0);
    const missing = run({});
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/set WBSYNC_FLEET_COPY_RECIPIENT/);
  });

  it('two workers, each its own volume and id, on Postgres and MinIO; their environment a configuration wbsync accepts', () => {
    // what compose itself makes of the file (anchors and merges resolved)
    const r = spawnSync(tool('docker-compose', 'docker-compose'), ['-f', file, 'config'], { cwd: dir, env: { PATH: process.env.PATH, WBSYNC_FLEET_COPY_RECIPIENT: RECIPIENT }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    type Svc = { command?: string[]; environment?: Record<string, string>; secrets?: Array<{ source: string; target?: string }>; volumes?: string[] };
    // docker-compose 1.x writes volumes short (SOURCE:TARGET:MODE): a bind's source is a path
    const volumesOf = (w: Svc) => (w.volumes ?? []).map((v) => v.split(':')).map(([source, target]) => ({ source: source!, target: target!, type: source!.startsWith('/') ? 'bind' : 'volume' }));
    const compose = parse(r.stdout) as { services: Record<string, Svc>; secrets: Record<string, { file: string }> };
    const workers = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === 'fleet');
    expect(workers.map(([n]) => n).sort()).toEqual(['worker-1', 'worker-2']);
    const ids = new Set<string>();
    const dataVolumes = new Set<string>();
    for (const [name, w] of workers) {
      expect(w.command!.slice(0, 2)).toEqual(['fleet', 'worker']);
      const id = w.command![w.command!.indexOf('--id') + 1]!;
      const data = w.command![w.command!.indexOf('--data') + 1]!;
      ids.add(id);
      const vol = volumesOf(w).find((v) => v.target === data)!;
      expect(vol.type, name).toBe('volume');
      dataVolumes.add(vol.source);
      const env = w.environment!;
      expect(Object.keys(env).filter((k) => /PASSWORD|ACCESS_KEY|SECRET_ACCESS/.test(k))).toEqual([]);
      const { config } = loadConfig({}, env);
      const mounted = (path: string): boolean => (w.secrets ?? []).some((s) => `/run/secrets/${s.target ?? s.source}` === path);
      expect(mounted(config.fleet.postgresUrlFile!), 'postgres url').toBe(true);
      expect(mounted(config.fleet.copyIdentityFile!), 'identity').toBe(true);
      expect(mounted(env.AWS_SHARED_CREDENTIALS_FILE!), 's3 credentials').toBe(true);
      expect(volumesOf(w).find((v) => v.target === config.fleet.keyDir)).toMatchObject({ type: 'bind' });
      expect(config.fleet.copies).toMatchObject({ bucket: 'wbsync-fleet', endpoint: 'http://minio:9000', forcePathStyle: true });
      expect(config.fleet.copyRecipient).toBe(RECIPIENT);
    }
    expect(ids.size).toBe(2);
    expect(dataVolumes.size).toBe(2);
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgres', 'minio']));
    expect(compose.services.postgres!.environment).not.toHaveProperty('POSTGRES_PASSWORD');
    for (const s of Object.values(compose.secrets)) expect(s.file).toMatch(/\/fleet\//);
  });
});
