// Text from the portal, made safe to print. Control characters (ANSI escapes, CR, BEL, C1 CSI)
// become visible \u escapes, so they cannot drive the terminal; and a line that CI systems read as
// a command (GitHub Actions `::error::`, Azure Pipelines `##[error]` and `##vso[...]`, anywhere on
// the line) is defused by escaping its first character, so a portal cannot annotate or steer a build.

/** Escapes control characters, keeping tabs and newlines (for whole log lines calfeed writes). */
export function escapeControl(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, uEscape);
}

/** Escapes every control character, newlines too (\n, \r, \t stay readable): portal text stays on one line. */
export function escapePortal(text: string): string {
  // eslint-disable-next-line no-control-regex
  const oneLine = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => SHORT[c] ?? uEscape(c));
  return defuseCommands(oneLine);
}

/** Defuses CI workflow commands at the start of any line (after blanks, which runners skip) and `##vso[` anywhere. */
export function defuseCommands(text: string): string {
  return text.replace(/^(\s*)(::|##\[)/gm, (_, blanks: string, command: string) => blanks + uEscape(command[0]!) + command.slice(1)).replace(/##vso\[/gi, (m) => uEscape('#') + m.slice(1));
}

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function uEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** String.prototype.isWellFormed (no lone surrogate; a native scan), which the ES2023 lib typings lack. */
export const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();
