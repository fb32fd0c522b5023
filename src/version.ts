// calfeed's version, read once from package.json (one folder above both src/ and dist/).
import { readFileSync } from 'node:fs';

/** The package version, for PRODID, generator tags and the User-Agent. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
