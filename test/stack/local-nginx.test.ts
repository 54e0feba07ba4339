/**
 * Starting the local edge fails loudly, never silently without nginx: a missing binary names
 * the package to install, and a config nginx refuses is reported with nginx's own message.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startLocalNginx } from '../../tools/stack/local-nginx';
import { NGINX_TEMPLATE_PATH } from '../../tools/stack/render-nginx';

let prefixDir: string;
beforeEach(async () => {
  prefixDir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-nginx-unit-'));
});
afterEach(() => fs.rm(prefixDir, { recursive: true, force: true }));

it('rejects with an install hint when the nginx binary is missing', async () => {
  await expect(
    startLocalNginx({ upstreams: ['127.0.0.1:1'], prefixDir, binary: '/nonexistent/sbin/nginx' }),
  ).rejects.toThrow(
    'nginx binary "/nonexistent/sbin/nginx" not found; install it (Debian: apt-get install nginx-light)',
  );
});

it('rejects with nginx’s message when nginx refuses the rendered config', async () => {
  const broken = path.join(prefixDir, 'broken.conf');
  const shipped = await fs.readFile(NGINX_TEMPLATE_PATH, 'utf8');
  await fs.writeFile(broken, shipped.replace('server_tokens off;', 'server_tokens sometimes;'));
  await expect(
    startLocalNginx({ upstreams: ['127.0.0.1:1'], prefixDir, templatePath: broken }),
  ).rejects.toThrow(/nginx -t failed[\s\S]*invalid value "sometimes"/);
});
