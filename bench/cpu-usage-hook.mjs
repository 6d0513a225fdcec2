// Preloaded into a benchmarked process (node --import): at exit it writes the process's own CPU time
// (user and system, microseconds) to $BENCH_CPU_OUT, so a benchmark can charge CPU to that process
// alone, not to the endpoint that serves it from the benchmark's own process.
import { writeFileSync } from 'node:fs';

const target = process.env.BENCH_CPU_OUT;
if (target) process.on('exit', () => writeFileSync(target, JSON.stringify(process.cpuUsage())));
