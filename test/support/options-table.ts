// Prints the README's options table from src/config/options.ts: `npx tsx test/support/options-table.ts`.
import { OPTIONS } from '../../src/config/options.js';

const rows = OPTIONS.map((o) => {
  const flag = `\`--${o.flag}${o.arg ? ' ' + o.arg : ''}\``;
  const def = o.default === undefined ? '' : `\`${o.default}\``;
  const file = o.cliOnly ? '' : `\`${o.key}\``;
  return `| ${flag} | \`${o.env}\` | ${file} | ${def} | ${o.commands.join(', ')} | ${o.help.replace(/\|/g, '\\|')} |`;
});
console.log(['| flag | env | config key | default | commands | meaning |', '|---|---|---|---|---|---|', ...rows].join('\n'));
