/**
 * Debian's chromium for browser tests (playwright-core cannot download its own browser here).
 * Installed with apt-get on first use when missing and we are root.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const root = process.getuid?.() === 0;
  if (!root || spawnSync('sh', ['-c', 'command -v apt-get']).status !== 0) {
    throw new Error(`browser tests need Debian's chromium: apt-get install -y chromium`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const policy = '/usr/sbin/policy-rc.d';
  const hadPolicy = existsSync(policy);
  if (!hadPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { stdio: 'ignore', env });
  } finally {
    if (!hadPolicy) rmSync(policy, { force: true });
  }
  if (!existsSync(CHROMIUM)) throw new Error('chromium install failed');
  return CHROMIUM;
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless chromium with the tests' flags, installed first when missing. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
}
