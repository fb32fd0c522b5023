// Renderers remember answers in the build's render context (src/render/context.ts), never in a
// module of their own: two builds in one process must share nothing, and a build's memos must go
// with it.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

// A top-level `let`, or a top-level Map, Set or StringMemo that starts empty: state that outlives a
// build. (A Set of listed constants, or a Readonly one, is a table, not a memo.)
const MODULE_STATE = /^(export )?let |^(export )?const \w+(: (?!Readonly)[^=]+)? = new (Weak)?(Map|Set|StringMemo)\b(?!\(\[)/;

describe('render state', () => {
  it('lives in the render context: no module under src/render or src/pipeline keeps any', () => {
    const found: string[] = [];
    for (const file of [...sources(join(SRC, 'render')), ...sources(join(SRC, 'pipeline'))]) {
      if (file === join(SRC, 'render', 'context.ts')) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (MODULE_STATE.test(line)) found.push(`${relative(SRC, file)}:${i + 1}: ${line}`);
        });
    }
    expect(found).toEqual([]);
  });
});
