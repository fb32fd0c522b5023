// Calendar-level and site-level files, each group kept as published (bytes and mtime) when rendered
// from the same inputs, what it took from "now" still holds, and its files are still the bytes recorded.

import type { Staging } from '../publish/index.js';
import type { RenderedGroup, RenderedState } from '../state/rendered.js';

/** Stages groups of files, keeping those whose inputs and published bytes match the record. */
export class CalendarFiles {
  /** Files rendered anew, and files kept. */
  rendered = 0;
  kept = 0;
  private readonly groups = new Map<string, { input: string; until: number; files: readonly string[] }>();

  constructor(
    private readonly staging: Staging,
    /** What the last published build recorded (the build store's rendered groups). */
    private readonly before: RenderedState,
    /** This build's "now". */
    private readonly now: number,
  ) {}

  /**
   * Stage one group: keep its published files when rendered from `input` to the same paths, still
   * valid at "now" and still published as recorded; else `render` writes every one of `files` and
   * returns until when what it took from "now" holds. Returns that instant.
   */
  async write(group: string, input: string, files: readonly string[], render: () => Promise<number>): Promise<number> {
    if (this.groups.has(group)) throw new Error(`internal: file group "${group}" staged twice`);
    const entry = { input, until: Infinity, files };
    this.groups.set(group, entry);
    const before = this.before.get(group);
    if (before && (await this.canKeep(before, input, files))) {
      for (const file of files) await this.staging.keep(file);
      this.kept += files.length;
      entry.until = before.until ?? Infinity;
    } else {
      entry.until = await render();
      this.rendered += files.length;
    }
    return entry.until;
  }

  /**
   * The record to save once this build is published: each group's input and its files' hashes as
   * staged. A group with a file that was not staged is left out (rendered next time).
   */
  state(): RenderedState {
    const staged = this.staging.files();
    const state = new Map<string, RenderedGroup>();
    for (const [name, { input, until, files }] of this.groups) {
      const hashes: Record<string, string> = Object.create(null) as Record<string, string>;
      let complete = true;
      for (const file of files) {
        const sha256 = staged.get(file)?.sha256;
        if (sha256 === undefined) complete = false;
        else hashes[file] = sha256;
      }
      if (complete) state.set(name, { input, until: Number.isFinite(until) ? until : null, files: hashes });
    }
    return state;
  }

  private async canKeep(before: RenderedGroup, input: string, files: readonly string[]): Promise<boolean> {
    if (before.input !== input || (before.until !== null && this.now >= before.until)) return false;
    if (Object.keys(before.files).length !== files.length) return false;
    for (const file of files) {
      const sha256 = before.files[file];
      if (sha256 === undefined || !(await this.staging.isPublished(file, sha256))) return false;
    }
    return true;
  }
}
