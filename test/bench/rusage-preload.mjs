// Preloaded into every measured process: writes its own resource usage (CPU, peak RSS) and its main
// thread's CPU to $BENCH_RUSAGE_FILE as it exits. The CLI ends with process.exit(), so 'exit'.
import { readFileSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

// Linux's per-thread CPU (utime, stime in clock ticks, USER_HZ: 100 wherever Node runs); null elsewhere.
function mainThreadCpu() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { userMs: Number(fields[11]) * 10, sysMs: Number(fields[12]) * 10 };
  } catch {
    return null;
  }
}

if (isMainThread) {
  process.on('exit', () => {
    const file = process.env.BENCH_RUSAGE_FILE;
    if (file) writeFileSync(file, JSON.stringify({ ...process.resourceUsage(), mainThread: mainThreadCpu() }));
  });
}
