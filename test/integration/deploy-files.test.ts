// The deploy files, each checked by the tool that would run it, then by the fields that tie it to
// wbsync (the image's paths and port, the rules and the dashboard it loads):
//  - deploy/systemd/wbsync.service: `systemd-analyze verify` (Debian's systemd) in a scratch root,
//    and `systemd-analyze security --offline` for its hardening;
//  - deploy/compose/compose.yaml: `docker-compose config` (Debian's docker-compose validates it
//    against the Compose schema, no engine needed);
//  - deploy/kubernetes/wbsync.yaml: every object against the Kubernetes OpenAPI schemas
//    (kubernetes-models), and its ConfigMap loaded by wbsync's own configuration loader;
//  - deploy/prometheus/prometheus.yml: `promtool check config` (its rules included).
// The tools fail, never skip, when missing, naming the package to install.

import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import { promtool } from '../helpers/prometheus.js';
import { tempDir } from '../helpers/harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DEPLOY = join(ROOT, 'deploy');
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** The runtime image's environment (ENV lines of the last stage). */
function imageEnv(): Record<string, string> {
  const runtime = DOCKERFILE.split(/^FROM /m).pop()!;
  const block = runtime.match(/^ENV ([\s\S]*?)(?=^\S)/m)?.[1] ?? '';
  return Object.fromEntries([...block.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/\\$/, '')]));
}
const IMAGE = imageEnv();
const IMAGE_PORT = Number(IMAGE.WBSYNC_DAEMON_LISTEN!.split(':')[1]);

function tool(name: string, pkg: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  if (found.status !== 0) throw new Error(`${name} is not installed: apt-get install -y ${pkg} (the README's test command brings it)`);
  return found.stdout.trim();
}

describe('deploy/systemd/wbsync.service', () => {
  const unitPath = join(DEPLOY, 'systemd/wbsync.service');
  const unit = readFileSync(unitPath, 'utf8');
  const t = tempDir('wbsync-unit-');
  afterAll(() => t.cleanup());

  /** A scratch root: the system's unit library, the unit, and an executable where ExecStart looks. */
  function scratchRoot(unitText: string): string {
    const root = join(t.dir, `root-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(root, 'usr/lib/systemd'), { recursive: true });
    cpSync('/usr/lib/systemd/system', join(root, 'usr/lib/systemd/system'), { recursive: true, verbatimSymlinks: true });
    symlinkSync('usr/lib', join(root, 'lib'));
    mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
    writeFileSync(join(root, 'etc/systemd/system/wbsync.service'), unitText);
    const exec = /^ExecStart=(\S+)/m.exec(unitText)![1]!;
    mkdirSync(join(root, dirname(exec)), { recursive: true });
    writeFileSync(join(root, exec), '#!/bin/sh\n');
    chmodSync(join(root, exec), 0o755);
    return root;
  }

  function verify(unitText: string): { status: number | null; problems: string[] } {
    const root = scratchRoot(unitText);
    const r = spawnSync(tool('systemd-analyze', 'systemd'), ['verify', `--root=${root}`, join(root, 'etc/systemd/system/wbsync.service')], { encoding: 'utf8' });
    // systemd-analyze exits 0 on an unknown key or a bad value: it only warns. Any line about the unit is a problem.
    return { status: r.status, problems: `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.includes('wbsync.service')) };
  }

  it('passes systemd-analyze verify with nothing to say', () => {
    expect(verify(unit)).toEqual({ status: 0, problems: [] });
  });

  it('the check would see a mistake (a misspelt key, a bad value)', () => {
    expect(verify(unit.replace('ProtectSystem=strict', 'ProtectSystm=strict')).problems.join('\n')).toMatch(/Unknown key 'ProtectSystm'/);
    expect(verify(unit.replace('ProtectSystem=strict', 'ProtectSystem=bogus')).problems.join('\n')).toMatch(/Failed to parse/);
  });

  it('runs as its own user, in its state directory, with the key as a credential, hardened', () => {
    for (const line of ['DynamicUser=yes', 'User=wbsync', 'StateDirectory=wbsync', 'StateDirectoryMode=0700', 'ProtectSystem=strict', 'NoNewPrivileges=yes', 'ProtectHome=yes', 'PrivateTmp=yes', 'UMask=0077']) {
      expect(unit).toMatch(new RegExp(`^${line}$`, 'm'));
    }
    // the key: a credential systemd reads as root, the service reads from $CREDENTIALS_DIRECTORY (%d)
    const cred = /^LoadCredential=([^:]+):(\S+)$/m.exec(unit)!;
    expect(cred).toBeTruthy();
    expect(unit).toMatch(new RegExp(`^Environment=WBSYNC_API_KEY_FILE=%d/${cred[1]}$`, 'm'));
    // the database inside the state directory (%S = /var/lib), the only place it may write
    expect(unit).toMatch(/^Environment=WBSYNC_DB=%S\/wbsync\/\S+$/m);
    expect(unit).not.toMatch(/WBSYNC_API_KEY=/);
    // a configuration error is not restarted in a loop
    expect(unit).toMatch(/^RestartPreventExitStatus=2$/m);
    // the environment it sets is a configuration wbsync accepts
    const env = Object.fromEntries([...unit.matchAll(/^Environment=(WBSYNC_\w+)=(\S+)$/gm)].filter((m) => m[1] !== 'WBSYNC_API_KEY_FILE').map((m) => [m[1]!, m[2]!.replace('%S', '/var/lib')]));
    expect(loadConfig({}, env).config.daemon.listen).toBe('127.0.0.1:9464');
  });

  it('systemd-analyze security rates its exposure OK (below 2.0 of 10)', () => {
    const root = scratchRoot(unit);
    const r = spawnSync(tool('systemd-analyze', 'systemd'), ['security', '--offline=true', `--root=${root}`, 'wbsync.service'], { encoding: 'utf8' });
    const m = /Overall exposure level for wbsync\.service: ([\d.]+) (\w+)/.exec(r.stdout);
    expect(m, r.stdout + r.stderr).toBeTruthy();
    expect(Number(m![1])).toBeLessThan(2);
  });
});

describe('deploy/prometheus/prometheus.yml', () => {
  it('is the scrape configuration the README shows', () => {
    const file = readFileSync(join(DEPLOY, 'prometheus/prometheus.yml'), 'utf8');
    const withoutComments = file.split('\n').filter((l) => !l.startsWith('#')).join('\n').trim();
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(blocks).toContain(withoutComments);
  });

  it('passes promtool check config, its rule files included', () => {
    const r = promtool(['check', 'config', join(DEPLOY, 'prometheus/prometheus.yml')]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/SUCCESS: 1 rule files found/);
    const cfg = parse(readFileSync(join(DEPLOY, 'prometheus/prometheus.yml'), 'utf8')) as { rule_files: string[]; scrape_configs: Array<{ metrics_path: string; static_configs: Array<{ targets: string[] }> }> };
    expect(cfg.rule_files).toEqual(['wbsync-rules.yml']);
    expect(cfg.scrape_configs[0]!.metrics_path).toBe('/metrics');
    expect(cfg.scrape_configs[0]!.static_configs[0]!.targets).toEqual([`wbsync:${IMAGE_PORT}`]);
  });
});

describe('deploy/compose/compose.yaml', () => {
  const dir = join(DEPLOY, 'compose');
  const file = join(dir, 'compose.yaml');

  it('passes docker-compose config (the Compose schema)', () => {
    const run = (env: Record<string, string>): ReturnType<typeof spawnSync> =>
      spawnSync(tool('docker-compose', 'docker-compose'), ['-f', file, 'config', '--quiet'], { cwd: dir, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
    const ok = run({ WBSYNC_BASE_URL: 'https://boards.example.com' });
    expect(ok.status, String(ok.stderr)).toBe(0);
    // the base URL is required, with a message
    const missing = run({});
    expect(missing.status).not.toBe(0);
    expect(String(missing.stderr)).toMatch(/set WBSYNC_BASE_URL/);
  });

  type Compose = {
    services: Record<string, { build?: string; image?: string; environment?: Record<string, string>; secrets?: Array<{ source: string; target: string }>; volumes?: string[]; expose?: string[]; command?: string[] }>;
    secrets: Record<string, { file: string }>;
  };
  const compose = parse(readFileSync(file, 'utf8')) as Compose;

  it('builds the repository\'s image; the key is a secret where the image reads it; data on a volume', () => {
    const w = compose.services.wbsync!;
    expect(existsSync(join(dir, w.build!, 'Dockerfile'))).toBe(true);
    expect(`/run/secrets/${w.secrets![0]!.target}`).toBe(IMAGE.WBSYNC_API_KEY_FILE);
    expect(compose.secrets[w.secrets![0]!.source]!.file).toBe('./wbsync.key');
    expect(w.volumes).toContain(`wbsync-data:${dirname(IMAGE.WBSYNC_DB!)}`);
    expect(w.expose).toEqual([String(IMAGE_PORT)]);
    expect(Object.keys(w.environment!).filter((k) => k.startsWith('WBSYNC_API_KEY'))).toEqual([]);
    // its environment is a configuration wbsync accepts
    const env = Object.fromEntries(Object.entries(w.environment!).map(([k, v]) => [k, v.startsWith('${') ? 'https://boards.example.com' : v]));
    expect(loadConfig({}, env).config.retention.keepDaily).toBe(7);
  });

  it('Prometheus loads the rules and scrapes wbsync; Grafana has the data source and the dashboard', () => {
    const p = compose.services.prometheus!;
    const promMount = p.volumes!.find((v) => v.endsWith(':/etc/prometheus:ro'))!;
    const promDir = resolve(dir, promMount.split(':')[0]!);
    expect(p.command).toContain('--config.file=/etc/prometheus/prometheus.yml');
    const cfg = parse(readFileSync(join(promDir, 'prometheus.yml'), 'utf8')) as { rule_files: string[]; scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }> };
    for (const f of cfg.rule_files) expect(existsSync(join(promDir, f)), f).toBe(true);
    expect(cfg.scrape_configs[0]!.static_configs[0]!.targets).toEqual([`wbsync:${IMAGE_PORT}`]);

    const g = compose.services.grafana!;
    const mountOf = (target: string): string => resolve(dir, g.volumes!.find((v) => v.split(':')[1] === target)!.split(':')[0]!);
    const provisioning = mountOf('/etc/grafana/provisioning');
    const ds = parse(readFileSync(join(provisioning, 'datasources/prometheus.yml'), 'utf8')) as { datasources: Array<{ type: string; url: string; isDefault: boolean }> };
    expect(ds.datasources[0]).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090', isDefault: true });
    const dash = parse(readFileSync(join(provisioning, 'dashboards/wbsync.yml'), 'utf8')) as { providers: Array<{ type: string; options: { path: string } }> };
    const dashboards = mountOf(dash.providers[0]!.options.path);
    expect(JSON.parse(readFileSync(join(dashboards, 'wbsync.json'), 'utf8'))).toMatchObject({ uid: 'wbsync', title: 'wbsync' });
  });
});

describe('deploy/kubernetes/wbsync.yaml', () => {
  const docs = parseAllDocuments(readFileSync(join(DEPLOY, 'kubernetes/wbsync.yaml'), 'utf8')).map((d) => d.toJS() as { kind: string; apiVersion: string; metadata: { name: string } });
  const byKind = <T>(kind: string): T => docs.find((d) => d.kind === kind) as T;

  it('every object is valid against the Kubernetes schemas', () => {
    expect(docs.map((d) => `${d.apiVersion} ${d.kind}`)).toEqual(['v1 ConfigMap', 'v1 Service', 'apps/v1 StatefulSet']);
    const models: Record<string, (o: never) => { validate(): void }> = {
      ConfigMap: (o) => new ConfigMap(o),
      Service: (o) => new Service(o),
      StatefulSet: (o) => new StatefulSet(o),
    };
    for (const d of docs) expect(() => models[d.kind]!(d as never).validate(), d.kind).not.toThrow();
    // and the validator would see a mistake
    const broken = structuredClone(byKind<StatefulSet>('StatefulSet')) as unknown as { spec: { template: { spec: { containers: Array<{ ports: Array<{ containerPort: unknown }> }> } } } };
    broken.spec.template.spec.containers[0]!.ports[0]!.containerPort = 'metrics';
    expect(() => new StatefulSet(broken as never).validate()).toThrow(/containerPort must be integer/);
  });

  it('a StatefulSet of one with its database on a claim, the key as a Secret file, the config from the ConfigMap', () => {
    const ss = byKind<StatefulSet>('StatefulSet');
    const spec = ss.spec!;
    expect(spec.replicas).toBe(1);
    expect(spec.selector.matchLabels).toEqual(spec.template.metadata!.labels);
    const pod = spec.template.spec!;
    const c = pod.containers[0]!;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 });
    expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    const mount = (name: string): string => c.volumeMounts!.find((m) => m.name === name)!.mountPath;
    const volume = (name: string) => pod.volumes!.find((v) => v.name === name)!;
    const env = Object.fromEntries(c.env!.map((e) => [e.name, e.value!]));

    // the database: on the volume claim template, where the configuration puts it
    expect(spec.volumeClaimTemplates![0]!.metadata!.name).toBe('data');
    expect(spec.volumeClaimTemplates![0]!.spec!.accessModes).toEqual(['ReadWriteOnce']);
    // the key: a Secret item mounted as the file WBSYNC_API_KEY_FILE names, readable by fsGroup
    const key = volume('key').secret!;
    expect(join(mount('key'), key.items![0]!.path)).toBe(env.WBSYNC_API_KEY_FILE);
    expect(env.WBSYNC_API_KEY_FILE).toBe(IMAGE.WBSYNC_API_KEY_FILE);
    expect((key.defaultMode! & 0o040) !== 0).toBe(true);
    expect(env).not.toHaveProperty('WBSYNC_API_KEY');
    // the configuration: the ConfigMap's file, where WBSYNC_CONFIG points, accepted by wbsync
    const cm = byKind<ConfigMap>('ConfigMap');
    expect(volume('config').configMap!.name).toBe(cm.metadata!.name);
    expect(dirname(env.WBSYNC_CONFIG!)).toBe(mount('config'));
    const t = tempDir('wbsync-k8s-');
    try {
      const file = join(t.dir, basename(env.WBSYNC_CONFIG!));
      writeFileSync(file, cm.data![basename(env.WBSYNC_CONFIG!)]!);
      const { config } = loadConfig({}, { WBSYNC_CONFIG: file });
      expect(dirname(config.db)).toBe(mount('data'));
      expect(Number(config.daemon.listen.split(':')[1])).toBe(c.ports![0]!.containerPort);
      expect(config.daemon.listen.split(':')[0]).toBe('0.0.0.0');
    } finally {
      t.cleanup();
    }
  });

  it('probes on /healthz, a Service with scrape annotations on the metrics port', () => {
    const ss = byKind<StatefulSet>('StatefulSet');
    const c = ss.spec!.template.spec!.containers[0]!;
    const port = c.ports![0]!;
    expect(c.readinessProbe!.httpGet).toEqual({ path: '/healthz', port: port.name });
    expect(c.livenessProbe!.tcpSocket).toEqual({ port: port.name });
    const svc = byKind<Service>('Service');
    expect(ss.spec!.serviceName).toBe(svc.metadata!.name);
    expect(svc.spec!.selector).toEqual(ss.spec!.selector.matchLabels);
    expect(svc.spec!.ports![0]).toMatchObject({ port: port.containerPort, targetPort: port.name });
    for (const annotations of [svc.metadata!.annotations!, ss.spec!.template.metadata!.annotations!]) {
      expect(annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port.containerPort), 'prometheus.io/path': '/metrics' });
    }
  });
});
