/**
 * The production edge for the "through nginx" scenarios: the shipped `nginx/nginx.conf`
 * rendered by `startLocalNginx` (the same renderer as `npm run stack` and the e2e tests), with
 * one change: the per-client request rate (200 r/s, burst 3,000) is raised to 10^6 r/s, because all
 * bench traffic comes from 127.0.0.1 and would otherwise measure the flood limit instead of
 * the service. The limit is still evaluated on every request, as production does.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startLocalNginx, type LocalNginx } from '../stack/local-nginx';
import { NGINX_TEMPLATE_PATH } from '../stack/render-nginx';

const PER_IP_RATE = /(limit_req_zone \$\w+ zone=radar_per_ip:\S+ rate=)\d+r\/s;/;

/** The shipped template with the per-IP rate raised; throws when the line is not found. */
export async function benchEdgeTemplate(dir: string): Promise<{ file: string; change: string }> {
  const shipped = await fs.readFile(NGINX_TEMPLATE_PATH, 'utf8');
  const match = PER_IP_RATE.exec(shipped);
  if (!match)
    throw new Error(`bench: cannot find the per-IP limit_req_zone line in ${NGINX_TEMPLATE_PATH}`);
  const patched = shipped.replace(PER_IP_RATE, '$11000000r/s;');
  const file = path.join(dir, 'nginx.bench-template.conf');
  await fs.writeFile(file, patched);
  return { file, change: `${match[0]} -> ${match[1]}1000000r/s;` };
}

export async function startEdge(options: {
  prefixDir: string;
  upstreams: readonly string[];
  templateFile: string;
  workers: number | 'auto';
}): Promise<LocalNginx> {
  return startLocalNginx({
    upstreams: options.upstreams,
    prefixDir: options.prefixDir,
    templatePath: options.templateFile,
    workerProcesses: options.workers,
  });
}
