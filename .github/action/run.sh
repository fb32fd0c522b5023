#!/usr/bin/env bash
# The build step of action.yml, kept out of the YAML so that a test can run it without GitHub
# (test/e2e/action.test.ts). Inputs arrive as INPUT_* variables (action.yml maps them; GitHub does
# not for a composite action) and the token as env CALFEED_TOKEN, never as an argument, where
# process lists and logs would show it. Runs `calfeed build --json` in the working folder (the
# workspace) and writes the summary's main figures to $GITHUB_OUTPUT.
set -euo pipefail

cli="${GITHUB_ACTION_PATH:?must be the folder of the action}/dist/cli.js"
args=(build --json --out "${INPUT_OUT:-public}" --cache-dir "${INPUT_CACHE_DIR:-.calfeed-cache}")
# An empty input means "not set": the config file or calfeed's default applies.
add() { if [[ -n "$2" ]]; then args+=("$1" "$2"); fi; }
add --base-url "${INPUT_BASE_URL:-}"
add --site-url "${INPUT_SITE_URL:-}"
add --time-zone "${INPUT_TIME_ZONE:-}"
add --config "${INPUT_CONFIG:-}"

summary="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/calfeed-summary.json"
status=0
node "$cli" "${args[@]}" >"$summary" || status=$?

# calfeed's own "published" says whether this run made the output folder the new site (false on
# failure, when up to date, when the build made the very files the folder holds, and when a usage
# error stopped calfeed before it printed anything).
# The step fails with calfeed's exit status.
node - "$summary" "$status" >>"${GITHUB_OUTPUT:-/dev/stdout}" <<'JS'
const fs = require('node:fs');
const [file, status] = process.argv.slice(2);
let s = {};
try { s = JSON.parse(fs.readFileSync(file, 'utf8')); } catch {}
const ok = status === '0' && s.ok === true;
const out = { published: s.published === true, 'up-to-date': ok && s.upToDate === true, 'summary-file': file };
if (ok) Object.assign(out, { events: s.events, warnings: s.warnings.length });
for (const [key, value] of Object.entries(out)) console.log(`${key}=${value}`);
const count = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;
if (ok && process.env.GITHUB_STEP_SUMMARY) {
  const what = s.upToDate ? 'up to date, nothing published' : s.published ? `published ${s.out}` : `built the very files ${s.out} holds, nothing published`;
  fs.appendFileSync(process.env.GITHUB_STEP_SUMMARY, `calfeed: ${what}; ${count(s.calendars, 'calendar')}, ${count(s.events, 'event')}, ${count(s.warnings.length, 'warning')}.\n`);
}
JS
exit "$status"
