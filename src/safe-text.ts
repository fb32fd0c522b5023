// Text from the portal, made safe to print: control characters (ANSI escapes, CR, BEL, C1 CSI)
// become visible \u escapes, so they cannot drive the terminal.

/** Escapes control characters, keeping tabs and newlines (for whole log lines calfeed writes). */
export function escapeControl(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, uEscape);
}

function uEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
