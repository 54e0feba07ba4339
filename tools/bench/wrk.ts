/**
 * The same load through `wrk` (C, one thread, Debian package): where autocannon needs more
 * than 0.8 of a core the generator, not the server, may set a baseline's ceiling, so those
 * runs are measured again with a generator that costs far less per request. A Lua script
 * walks the same request sequences (paths, ranges, headers) round-robin per connection.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LoadJob, LoadResult } from './load-job';

const luaString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** The Lua script: every request of every sequence, each with its full header set. */
function script(job: LoadJob): string {
  const requests = job.sequences.flat().map((r) => {
    const headers: Record<string, string> = { ...job.headers, ...(r.headers ?? {}) };
    if (r.range) headers.range = r.range;
    const fields = Object.entries(headers)
      .map(([k, v]) => `[${luaString(k)}]=${luaString(v)}`)
      .join(',');
    return `{${luaString(r.path)},{${fields}}}`;
  });
  return `local reqs = {${requests.join(',\n')}}
local i = 0
request = function()
  i = i + 1
  if i > #reqs then i = 1 end
  local r = reqs[i]
  return wrk.format("GET", r[1], r[2])
end
`;
}

function ms(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : n;
}

/** Runs `wrk -t1` with the job's connections for its duration; parses wrk's summary. */
export async function runWrk(job: LoadJob): Promise<LoadResult> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-wrk-'));
  const file = path.join(dir, 'plan.lua');
  await fs.writeFile(file, script(job));
  const args = [
    '-t1',
    `-c${job.connections}`,
    `-d${job.durationS}s`,
    `--timeout`,
    `${job.timeoutS ?? 10}s`,
    '--latency',
    '-s',
    file,
    job.baseUrl,
  ];
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`wrk exited ${code}: ${out}`)),
    );
  });
  await fs.rm(dir, { recursive: true, force: true });
  const pick = (re: RegExp) => re.exec(output);
  const total = pick(/(\d+) requests in ([\d.]+)(ms|s|m)/);
  const responses = Number(total?.[1] ?? 0);
  const durationS = total ? ms(total[2]!, total[3]!) / 1000 : job.durationS;
  const percentile = (p: string) => {
    const m = pick(new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s)`, 'm'));
    return m ? ms(m[1]!, m[2]!) : Number.NaN;
  };
  const latency = pick(/Latency\s+([\d.]+)(us|ms|s)\s+[\d.]+\w+\s+([\d.]+)(us|ms|s)/);
  const nonOk = Number(pick(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0);
  const socket = pick(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const socketErrors = socket ? Number(socket[1]) + Number(socket[2]) + Number(socket[3]) : 0;
  const timeouts = socket ? Number(socket[4]) : 0;
  const transfer = pick(/Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/);
  const scale: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
  return {
    label: `${job.label} [wrk]`,
    durationS,
    responses,
    rps: Math.round(responses / Math.max(0.001, durationS)),
    latencyMs: {
      p50: percentile('50'),
      p90: percentile('90'),
      p99: percentile('99'),
      p999: Number.NaN,
      max: latency ? ms(latency[3]!, latency[4]!) : Number.NaN,
      mean: latency ? ms(latency[1]!, latency[2]!) : Number.NaN,
    },
    mbPerS: transfer ? Number(((Number(transfer[1]) * scale[transfer[2]!]!) / 1e6).toFixed(1)) : 0,
    statusCounts: { ok: responses - nonOk, other: nonOk },
    errors: nonOk + socketErrors + timeouts,
    socketErrors,
    timeouts,
  };
}
