// Runs a command and prints the peak RSS of it and every process under it, summed (sampled every 25 ms from /proc; Linux).
// usage: node bench/children/tree-rss.mjs COMMAND ARGS...
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
const kids = (pid) => { let out = []; try { for (const t of readdirSync(`/proc/${pid}/task`)) { for (const c of readFileSync(`/proc/${pid}/task/${t}/children`,'latin1').split(' ')) { const n = Number(c); if (n>0) { out.push(n); out.push(...kids(n)); } } } } catch {} return out; };
const rss = (pid) => { try { return Number(readFileSync(`/proc/${pid}/statm`,'latin1').split(' ')[1])*4096; } catch { return 0; } };
const child = spawn(process.argv[2], process.argv.slice(3), { stdio: ['ignore','inherit','inherit'] });
let peak = 0, peakParent = 0;
const t = setInterval(() => { const all = [child.pid, ...kids(child.pid)]; const s = all.reduce((a,p)=>a+rss(p),0); peak = Math.max(peak,s); peakParent = Math.max(peakParent, rss(child.pid)); }, 25);
child.on('exit', (c) => { clearInterval(t); console.error(`PEAK tree ${(peak/1048576).toFixed(0)} MB, top process ${(peakParent/1048576).toFixed(0)} MB, exit ${c}`); });
