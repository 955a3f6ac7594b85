// Runs a command and prints the peak RSS of it and every process under it, summed (sampled every 25 ms from /proc; Linux).
// usage: node bench/children/tree-rss.mjs COMMAND ARGS...
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
const kids = (pid) => { let out = []; try { for (const t of readdirSync(`/proc/${pid}/task`)) { for (const c of readFileSync(`/proc/${pid}/task/${t}/children`,'latin1').split(' ')) { const n = Number(c); if (n>0) { out.push(n); out.push(...kids(n)); } } } } catch {} return out; };
const rss = (pid) => { try { return Number(readFileSync(`/proc/${pid}/statm`,'latin1').split(' ')[1])*4096; } catch { return 0; } };
const child = spawn(process.argv[2], process.argv.slice(3), { stdio: ['ignore','inherit','inherit'] });
let peak = 0, peakParent = 0, atPeak = '', t0 = Date.now();
const perPid = new Map();
const t = setInterval(() => { const all = [child.pid, ...kids(child.pid)]; const each = all.map((p) => [p, rss(p)]); const s = each.reduce((a,[,r])=>a+r,0); for (const [p,r] of each) perPid.set(p, Math.max(perPid.get(p) ?? 0, r)); if (s > peak) { peak = s; atPeak = `${((Date.now()-t0)/1000).toFixed(1)} s: ` + each.map(([p,r]) => `${p}=${(r/1048576).toFixed(0)}`).join(' '); } peakParent = Math.max(peakParent, rss(child.pid)); }, 25);
child.on('exit', (c) => { clearInterval(t); console.error(`PEAK tree ${(peak/1048576).toFixed(0)} MB, top process ${(peakParent/1048576).toFixed(0)} MB, exit ${c}`); console.error(`at the peak (MB per pid) ${atPeak}; each pid's own peak: ${[...perPid].filter(([,r])=>r>0).map(([p,r]) => `${p}=${(r/1048576).toFixed(0)}`).join(' ')}`); });
