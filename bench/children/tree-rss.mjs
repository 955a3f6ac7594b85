// Runs a command and prints the peak RSS of it and every process under it, summed (sampled every 25 ms from /proc; Linux),
// with each process's RSS and command line at that peak. A child forked but not yet exec'd is not counted (see below).
// usage: node bench/children/tree-rss.mjs COMMAND ARGS...
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
const kids = (pid) => { let out = []; try { for (const t of readdirSync(`/proc/${pid}/task`)) { for (const c of readFileSync(`/proc/${pid}/task/${t}/children`,'latin1').split(' ')) { const n = Number(c); if (n>0) { out.push(n); out.push(...kids(n)); } } } } catch {} return out; };
const rss = (pid) => { try { return Number(readFileSync(`/proc/${pid}/statm`,'latin1').split(' ')[1])*4096; } catch { return 0; } };
const cmdline = (pid) => { try { return readFileSync(`/proc/${pid}/cmdline`,'utf8').split('\0').filter(Boolean).join(' ').slice(0, 300); } catch { return '?'; } };
const parentOf = (pid) => { try { return Number(readFileSync(`/proc/${pid}/stat`,'latin1').replace(/^.*\) /s, '').split(' ')[1]); } catch { return 0; } };
const preExec = (pid) => { const c = cmdline(pid); return c !== '?' && c === cmdline(parentOf(pid)); };
const child = spawn(process.argv[2], process.argv.slice(3), { stdio: ['ignore','inherit','inherit'] });
let peak = 0, peakParent = 0, atPeak = '', t0 = Date.now();
const perPid = new Map(), names = new Map();
const t = setInterval(() => {
  // A child forked but not yet exec'd (node's spawn of tesseract) has its parent's command line and
  // shares its parent's pages copy-on-write: counting its RSS would count the parent twice.
  const all = [child.pid, ...kids(child.pid)].filter((p) => !preExec(p));
  const each = all.map((p) => [p, rss(p)]);
  const s = each.reduce((a,[,r])=>a+r,0);
  for (const [p,r] of each) { perPid.set(p, Math.max(perPid.get(p) ?? 0, r)); if (!names.get(p)) names.set(p, cmdline(p).replace(/^\?$/, "")); }
  if (s > peak) { peak = s; atPeak = `${((Date.now()-t0)/1000).toFixed(1)} s:\n` + each.filter(([,r]) => r > 0).map(([p,r]) => `  ${p} ${(r/1048576).toFixed(0)} MB  ${cmdline(p)}`).join('\n'); }
  peakParent = Math.max(peakParent, rss(child.pid));
}, 25);
child.on('exit', (c) => {
  clearInterval(t);
  console.error(`PEAK tree ${(peak/1048576).toFixed(0)} MB, top process ${(peakParent/1048576).toFixed(0)} MB, exit ${c}`);
  console.error(`at the peak (pid, RSS, command line) ${atPeak}`);
  if (process.env.TREE_RSS_ALL) console.error(`each pid's own peak:\n${[...perPid].filter(([,r])=>r>0).map(([p,r]) => `  ${p} ${(r/1048576).toFixed(0)} MB  ${(names.get(p) ?? '?').slice(0, 160)}`).join('\n')}`);
  else console.error(`each pid's own peak (TREE_RSS_ALL=1 for their command lines): ${[...perPid].filter(([,r])=>r>0).map(([p,r]) => `${p}=${(r/1048576).toFixed(0)}`).join(' ')}`);
});
