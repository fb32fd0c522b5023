// Fails on high or critical advisories in runtime dependencies (`npm audit --omit=dev`).
// A registry without the audit endpoint cannot answer: that is reported loudly, not treated as clean.
import { spawnSync } from 'node:child_process';

const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8' });
let report;
try {
  report = JSON.parse(run.stdout);
} catch {
  console.error(`audit: npm audit gave no JSON (exit ${run.status}); stderr:\n${run.stderr}`);
  process.exit(1);
}
if (report.error) {
  const summary = String(report.message || report.error.summary || report.error.code || 'unknown error');
  if (/endpoint|ENOTFOUND|ECONNREFUSED|405|ETIMEDOUT/i.test(summary + JSON.stringify(report.error)) || report.statusCode === 405) {
    console.warn(`audit: WARNING: the registry's audit endpoint is unavailable here (${summary}); advisories were NOT checked.`);
    process.exit(0);
  }
  console.error(`audit: ${summary}`);
  process.exit(1);
}
const counts = report.metadata?.vulnerabilities ?? {};
const serious = (counts.high ?? 0) + (counts.critical ?? 0);
console.log(`audit: runtime dependencies: ${JSON.stringify(counts)}`);
if (serious > 0) {
  console.error('audit: high or critical advisories in runtime dependencies; run "npm audit --omit=dev" for details.');
  process.exit(1);
}
