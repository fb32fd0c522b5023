// Where a JSON syntax error is, as a line and column: people fix config files in an editor, not by
// counting characters. V8 gives an offset for most errors ("at position 58") and none for others
// ("Unexpected token '}', ...is not valid JSON"); those are located by parsing ever longer prefixes.

/** The line and column (1-based) of the error JSON.parse raised for `text`, and its reason. */
export function locateJsonError(text: string, error: Error): { line: number; column: number; reason: string } {
  const at = /at position (\d+)/.exec(error.message);
  const offset = at ? Number(at[1]) : firstBadOffset(text);
  const before = text.slice(0, offset).split('\n');
  // An error at the very end, whatever V8 calls it ("Expected double-quoted property name"), is a cut-off file.
  const reason = text.slice(offset).trim() === ''
    ? 'the file ends before the JSON does'
    : error.message
        .replace(/^(Unexpected token '.'), [\s\S]*is not valid JSON$/u, '$1') // drops V8's quote of the text
        .replace(/ at position \d+[\s\S]*$/, '')
        .replace(/ in JSON$/, '');
  return { line: before.length, column: before.at(-1)!.length + 1, reason };
}

/**
 * The offset of the character that makes the text invalid: the shortest prefix that fails other
 * than by ending early. Once a prefix holds the error every longer one does, so a binary search finds it.
 */
function firstBadOffset(text: string): number {
  const bad = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return false;
    } catch (error) {
      const message = (error as Error).message;
      const at = /at position (\d+)/.exec(message);
      return !/end of JSON input/.test(message) && (at === null || Number(at[1]) < length);
    }
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (bad(mid + 1)) high = mid;
    else low = mid + 1;
  }
  return low;
}
