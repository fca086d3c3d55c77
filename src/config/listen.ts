// A listen address (`daemon.listen`, `wbsync ui --listen`) split into host and port, at its last
// colon (so `[::1]:9464` keeps its brackets). The config schema and the CLI check the shape first.

export function parseListen(listen: string): { host: string; port: number } {
  const i = listen.lastIndexOf(':');
  return { host: listen.slice(0, i), port: Number(listen.slice(i + 1)) };
}
