// Preloaded into the measured CLI when GNU time is missing: writes the process's own resource usage
// (CPU, peak RSS) to $BENCH_RUSAGE_FILE as it exits. The CLI ends with process.exit(), so 'exit'.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const file = process.env.BENCH_RUSAGE_FILE;
  if (file) writeFileSync(file, JSON.stringify(process.resourceUsage()));
});
