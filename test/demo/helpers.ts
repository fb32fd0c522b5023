// Test helpers for the demo portal: a GET over real HTTP with undici, and a portal per test that
// closes itself.

import { request } from 'undici';
import { afterEach } from 'vitest';
import { startDemoPortal, type DemoPortal, type DemoPortalOptions } from '../../src/demo/server.js';

/** 2026-03-20T12:00:00Z, a week before the EU DST change: events straddle it. */
export const NOW = Date.UTC(2026, 2, 20, 12, 0, 0);

export interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET `path` (relative to the portal URL, or absolute) with an optional token and headers. */
export async function get(portal: DemoPortal, path: string, token?: string | null, headers: Record<string, string> = {}): Promise<Got> {
  const url = path.startsWith('http') ? path : portal.url + path;
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await request(url, { method: 'GET', headers: { ...auth, ...headers } });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

/** GET as the university organization and parse JSON, failing loudly on a non-200. */
export async function getJson(portal: DemoPortal, path: string): Promise<unknown> {
  const res = await get(portal, path, portal.tokens.university);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.body.slice(0, 200)}`);
  return JSON.parse(res.body) as unknown;
}

const open: DemoPortal[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

/** Start a portal (default now = NOW) that is closed after the test. */
export async function portal(options: DemoPortalOptions = {}): Promise<DemoPortal> {
  const p = await startDemoPortal({ now: NOW, ...options });
  open.push(p);
  return p;
}
