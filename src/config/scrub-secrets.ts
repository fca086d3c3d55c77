// Secrets (the API key) cut out of text about to be printed or logged: the logger's sink and the
// CLI's error report both pass through it. Apart from the logger, so reporting a usage error does not load pino.

export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}
