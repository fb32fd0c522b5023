// node:fs as on a file system without hard links: linkSync fails with EPERM, as it does there.
// For vi.mock('node:fs', async (importOriginal) => withoutLinkSync(await importOriginal())).

export function noLink(): never {
  throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM', syscall: 'link' });
}

export function withoutLinkSync<T extends object>(actual: T): T {
  return { ...actual, default: { ...actual, linkSync: noLink }, linkSync: noLink };
}
