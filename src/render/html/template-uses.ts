// What templates use, read from their syntax trees at load time: the {{t}} message keys (so an
// unknown key fails the build, naming file and line) and the partials they include (so a user's
// file nothing uses, a misspelt override, fails instead of being silently ignored).

import Handlebars from 'handlebars';
import { ConfigError } from '../../errors.js';
import { nearest } from '../../config/nearest.js';

/** What one template uses. */
export interface TemplateUses {
  /** Message keys of {{t "key"}} calls, with the line of each. */
  keys: Array<{ key: string; line: number }>;
  /** Names of the partials it includes ({{> name}}, {{#> name}}). */
  partials: string[];
}

interface Node {
  type?: string;
  [field: string]: unknown;
}

/** The keys and partials a template's text uses (the text is known to compile). */
export function templateUses(text: string): TemplateUses {
  const uses: TemplateUses = { keys: [], partials: [] };
  walk(Handlebars.parse(text) as unknown as Node, uses);
  return uses;
}

function walk(node: Node, uses: TemplateUses): void {
  const path = node['path'] as Node | undefined;
  const params = node['params'] as Node[] | undefined;
  if ((node.type === 'MustacheStatement' || node.type === 'SubExpression') && path?.['original'] === 't' && params?.[0]?.type === 'StringLiteral') {
    const loc = node['loc'] as { start: { line: number } } | undefined;
    uses.keys.push({ key: String(params[0]['value']), line: loc?.start.line ?? 0 });
  }
  if (node.type === 'PartialStatement' || node.type === 'PartialBlockStatement') {
    const name = node['name'] as Node;
    if (name.type === 'PathExpression') uses.partials.push(String(name['original']));
  }
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const child of value) walkValue(child, uses);
    else walkValue(value, uses);
  }
}

function walkValue(value: unknown, uses: TemplateUses): void {
  if (value && typeof value === 'object' && typeof (value as Node).type === 'string') walk(value as Node, uses);
}

/**
 * Throws unless each of the user's files (relative names) overrides a built-in one or is a partial
 * or layout a template includes: any other file would be silently ignored.
 */
export function checkUserNames(userFiles: readonly string[], builtin: ReadonlySet<string>, included: ReadonlySet<string>, dir: string): void {
  for (const rel of userFiles) {
    if (builtin.has(rel)) continue;
    const name = rel.replace(/\.hbs$/, '');
    const own = rel.endsWith('.hbs') && (rel.startsWith('partials/') ? included.has(name.slice('partials/'.length)) : rel.startsWith('layouts/') && included.has(name));
    if (own) continue;
    const folder = rel.slice(0, rel.indexOf('/') + 1);
    const known = [...builtin].filter((b) => b.startsWith(folder)).sort();
    const near = nearest(rel, known);
    const kind = folder === 'partials/' || folder === 'layouts/' ? ' and no template includes it' : '';
    throw new ConfigError(
      `--templates: ${dir}/${rel} overrides nothing: calfeed has no ${rel}${kind}.${near ? ` Did you mean ${near}?` : ''} ` +
        `Known names in ${folder}: ${known.join(', ')}. Template names are listed in docs/templates.md.`,
    );
  }
}
