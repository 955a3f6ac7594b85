import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommandArgs } from '../../src/cli/args.js';
import type { CliIO } from '../../src/cli/io.js';
import { serveCommand, serveSettingsFrom } from '../../src/cli/serve-command.js';
import { runCli, spawnServe } from './cli.js';

function recorder(): CliIO & { outText(): string; errText(): string } {
  let out = '';
  let err = '';
  return {
    out: (t) => void (out += t), err: (t) => void (err += t), readStdin: async () => new Uint8Array(),
    outText: () => out, errText: () => err,
  };
}

describe('groundwork serve (spawned)', () => {
  it('serves until SIGTERM, then stops cleanly with exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-serve-cli-'));
    const server = await spawnServe(['--library', dir]);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe('ok');
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain('groundwork: stopped');
  });

  it('mints a key: the key on stdout, only its hash in the line to keep', async () => {
    const result = await runCli(['serve', '--new-key', 'ci', '--scope', 'read-only']);
    expect(result.code).toBe(0);
    const key = result.stdout.trim();
    expect(key).toMatch(/^gw_[A-Za-z0-9_-]{40,}$/);
    expect(result.stderr).toMatch(/ci read-only sha256:[0-9a-f]{64}/);
    expect(result.stderr).not.toContain(key);
  });

  it('refuses a host beyond loopback without keys (exit 2) and bad flags', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-serve-cli-'));
    const open = await runCli(['serve', '--library', dir, '--host', '0.0.0.0', '--port', '0']);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/without API keys.*\[INVALID_OPTIONS\]/);
  });

  it('checks its flags before opening anything (in process)', async () => {
    const io = recorder();
    const never = new AbortController().signal;
    expect(await serveCommand(['--rate', 'fast'], io, never)).toBe(2);
    expect(io.errText()).toContain('--rate must be a positive number');
    expect(await serveCommand(['--no-rate-limit', '--burst', '3'], io, never)).toBe(2);
    expect(await serveCommand(['--scope', 'admin', '--new-key', 'x'], io, never)).toBe(2);
    expect(await serveCommand(['--help'], io, never)).toBe(0);
    expect(io.outText()).toContain('--new-key NAME');
    expect(serveSettingsFrom(parseCommandArgs(['--port', '8080', '--cors', 'https://a.example', '--max-upload-mb', '2', '--rate', '5', '--shutdown-grace', '1.5'], {
      port: { type: 'string' }, cors: { type: 'string', multiple: true }, 'max-upload-mb': { type: 'string' }, rate: { type: 'string' }, burst: { type: 'string' }, 'no-rate-limit': { type: 'boolean' }, 'shutdown-grace': { type: 'string' },
    }))).toEqual({ port: 8080, corsOrigins: ['https://a.example'], maxUploadBytes: 2 * 1024 * 1024, rateLimit: { perSecond: 5, burst: 10 }, shutdownGraceMs: 1500 });
  });
});
