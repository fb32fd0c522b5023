// Calendar-level and site-level files: a calendar's calendar.ics, feeds and pages, and the combined
// calendar.ics, feeds and index.html. Each group of files rendered together is kept as published,
// bytes and mtime included, when it was last rendered from the same inputs (src/pipeline/render-keys.ts)
// and is still published with the bytes recorded then; otherwise it is rendered. The event-level
// counterpart is src/pipeline/event-files.ts.

import type { Staging } from '../publish/index.js';
import type { RenderedGroup, RenderedState } from '../state/rendered.js';

/** Stages groups of files, keeping those whose inputs and published bytes match the record. */
export class CalendarFiles {
  /** Files rendered anew, and files kept. */
  rendered = 0;
  kept = 0;
  private readonly groups = new Map<string, { input: string; files: readonly string[] }>();

  constructor(
    private readonly staging: Staging,
    /** What the last published build recorded (loadRendered). */
    private readonly before: RenderedState,
  ) {}

  /**
   * Stage one group: keep its published files when the record says they were rendered from `input`
   * (same fingerprint, same paths) and each is still published with the SHA-256 recorded for it;
   * else call `render`, which must write every one of `files`. Returns whether they were kept.
   */
  async write(group: string, input: string, files: readonly string[], render: () => Promise<void>): Promise<boolean> {
    if (this.groups.has(group)) throw new Error(`internal: file group "${group}" staged twice`);
    this.groups.set(group, { input, files });
    const keep = await this.canKeep(this.before.get(group), input, files);
    if (keep) {
      for (const file of files) await this.staging.keep(file);
      this.kept += files.length;
    } else {
      await render();
      this.rendered += files.length;
    }
    return keep;
  }

  /**
   * The record to save once this build is published: each group's input and its files' hashes as
   * staged. A group with a file that was not staged is left out (rendered next time).
   */
  state(): RenderedState {
    const staged = this.staging.files();
    const state = new Map<string, RenderedGroup>();
    for (const [name, { input, files }] of this.groups) {
      const hashes: Record<string, string> = Object.create(null) as Record<string, string>;
      let complete = true;
      for (const file of files) {
        const sha256 = staged.get(file)?.sha256;
        if (sha256 === undefined) complete = false;
        else hashes[file] = sha256;
      }
      if (complete) state.set(name, { input, files: hashes });
    }
    return state;
  }

  private async canKeep(before: RenderedGroup | undefined, input: string, files: readonly string[]): Promise<boolean> {
    if (before?.input !== input || Object.keys(before.files).length !== files.length) return false;
    for (const file of files) {
      const sha256 = before.files[file];
      if (sha256 === undefined || !(await this.staging.isPublished(file, sha256))) return false;
    }
    return true;
  }
}
