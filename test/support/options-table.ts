// The options table of docs/configuration.md, made from src/config/options.ts. Print it with
// `npx tsx test/support/options-table.ts` and paste it over the table there; test/e2e/cli.test.ts
// checks that the two are the same.
import { pathToFileURL } from 'node:url';
import { OPTIONS } from '../../src/config/options.js';

/** The table as Markdown, a row per option in help order. */
export function optionsTable(): string {
  const rows = OPTIONS.map((o) => {
    const flag = `\`--${o.flag}${o.arg ? ' ' + o.arg : ''}\``;
    const def = o.default === undefined ? '' : `\`${o.default}\``;
    const file = o.cliOnly ? '' : `\`${o.key}\``;
    return `| ${flag} | \`${o.env}\` | ${file} | ${def} | ${o.commands.join(', ')} | ${o.help.replace(/\|/g, '\\|')} |`;
  });
  return ['| flag | env | config key | default | commands | meaning |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(optionsTable());
