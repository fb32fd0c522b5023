// Checks a published folder against its own manifest, as a CI step or an operator would: every
// file listed is there with its size and SHA-256, nothing else is (top-level dot files aside), and
// every feed, page and calendar parses. (The `calfeed verify` command the issue asks for does not
// exist yet; this reuses the check publish runs on staging, reading every file.)
import { realpath } from 'node:fs/promises';
import { verifyStaging } from '../../src/publish/verify.js';

/** Resolves when `out` (a folder, or a link to one) is one complete site; rejects naming the first problem. */
export async function verifyOut(out: string): Promise<void> {
  await verifyStaging(await realpath(out));
}

/** verifyOut as a value: undefined when the site is complete, else the problem. */
export async function siteProblem(out: string): Promise<string | undefined> {
  return verifyOut(out).then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
}
