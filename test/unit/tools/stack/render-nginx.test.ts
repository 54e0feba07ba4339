/**
 * The local rendering of the shipped nginx config: only the marked lines change, every marker
 * is present exactly once, and the shipped values keep the invariants the edge relies on.
 */
import fs from 'node:fs';
import { DRAIN_IDLE_CLOSE_MS, KEEP_ALIVE_TIMEOUT_MS } from '../../../../src/http/http-server';
import {
  NGINX_MARKERS,
  NGINX_TEMPLATE_PATH,
  renderNginxConfig,
  type NginxRenderOptions,
} from '../../../../tools/stack/render-nginx';

const shipped = fs.readFileSync(NGINX_TEMPLATE_PATH, 'utf8');
const options: NginxRenderOptions = {
  upstreams: ['127.0.0.1:8081', '127.0.0.1:8082'],
  port: 18080,
  statusPort: 19180,
  prefixDir: '/tmp/radar-edge',
};
const MARKED = /# @local:[a-z-]+\s*$/;

describe('renderNginxConfig', () => {
  const rendered = renderNginxConfig(shipped, options);

  it('rewrites addresses, ports and paths for a local run', () => {
    expect(rendered).toContain('    listen 127.0.0.1:18080;');
    expect(rendered).toContain('        listen 127.0.0.1:19180;');
    expect(rendered).toContain(
      '        server 127.0.0.1:8081 max_fails=1 fail_timeout=3s;\n        server 127.0.0.1:8082 max_fails=1 fail_timeout=3s;',
    );
    expect(rendered).not.toMatch(/server api:8080/);
    expect(rendered).toContain('pid /tmp/radar-edge/nginx.pid;');
    expect(rendered).toContain('access_log /tmp/radar-edge/logs/access.log radar_json;');
    for (const kind of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
      expect(rendered).toContain(`${kind}_temp_path /tmp/radar-edge/tmp/${kind};`);
    }
    expect(rendered).toMatch(/^worker_processes 1;$/m);
    expect(rendered).toMatch(/^\s+keepalive_timeout 4s;$/m);
    const short = renderNginxConfig(shipped, {
      ...options,
      upstreamKeepaliveTimeoutS: 2,
      workerProcesses: 'auto',
    });
    expect(short).toMatch(/^\s+keepalive_timeout 2s;$/m);
    expect(short).toMatch(/^worker_processes auto;$/m);
  });

  it('leaves every unmarked line as shipped, in order', () => {
    const unmarked = shipped.split('\n').filter((line) => !MARKED.test(line));
    const out = rendered.split('\n');
    let at = 0;
    for (const line of unmarked) {
      const found = out.indexOf(line, at);
      expect([line, found >= 0]).toEqual([line, true]);
      at = found + 1;
    }
    expect(out.some((line) => MARKED.test(line))).toBe(false);
  });

  it('refuses a template whose markers are missing, repeated or unknown', () => {
    expect(NGINX_MARKERS.length).toBeGreaterThan(0);
    for (const name of NGINX_MARKERS) {
      const missing = shipped.replace(new RegExp(`\\s*# @local:${name}\\s*$`, 'm'), '');
      expect(() => renderNginxConfig(missing, options)).toThrow(`@local:${name} found 0 times`);
    }
    expect(() => renderNginxConfig(`${shipped}\nlisten 1;  # @local:listen\n`, options)).toThrow(
      'found 2 times',
    );
    expect(() => renderNginxConfig(`${shipped}\nfoo;  # @local:whatever\n`, options)).toThrow(
      'unknown marker',
    );
    expect(() => renderNginxConfig(shipped, { ...options, upstreams: [] })).toThrow(
      'at least one upstream',
    );
    expect(() => renderNginxConfig(shipped, { ...options, prefixDir: 'relative' })).toThrow(
      'absolute',
    );
  });
});

describe('the shipped nginx/nginx.conf', () => {
  it('closes idle upstream connections before the replicas do, draining or not', () => {
    const idle = /keepalive_timeout (\d+)s;\s+# @local:upstream-keepalive-timeout/.exec(shipped);
    expect(Number(idle![1]) * 1000).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS);
    // A draining replica closes a connection idle past RADAR_DRAIN_IDLE_S (default): nginx must
    // have let go of it by then, or its next request on it would be reset.
    expect(Number(idle![1]) * 1000).toBeLessThan(DRAIN_IDLE_CLOSE_MS);
  });

  it('compresses JSON only, never intercepts replica errors, retries connection errors only', () => {
    expect(shipped.match(/^\s*gzip_types .*$/gm)).toEqual(['    gzip_types application/json;']);
    expect(shipped).not.toMatch(/vnd\.pmtiles;/);
    expect(shipped).toMatch(/^\s*proxy_intercept_errors off;$/m);
    expect(shipped.match(/^\s*proxy_next_upstream .*$/gm)).toEqual([
      '            proxy_next_upstream error timeout;',
    ]);
    expect(shipped).toMatch(/^\s*server_tokens off;$/m);
    expect(shipped).not.toMatch(/^\s*proxy_cache\b/m);
  });
});

describe('flood limits', () => {
  it('renders each limit and the X-RateLimit-Limit its 429 reports as the same number', () => {
    const shippedNumbers = renderNginxConfig(shipped, options);
    expect(shippedNumbers).toMatch(/limit_req zone=radar_per_ip burst=2999 nodelay;/);
    expect(shippedNumbers).toMatch(/^\s+0 {2}3000;$/m);
    const low = renderNginxConfig(shipped, {
      ...options,
      floodLimits: { client: 5, anonymous: 3, connections: 2 },
    });
    expect(low).toMatch(/limit_req zone=radar_per_ip burst=4 nodelay;/);
    expect(low).toMatch(/limit_req zone=radar_anonymous burst=2 nodelay;/);
    expect(low).toMatch(/limit_conn radar_conn_per_ip 2;/);
    expect(low).toMatch(/^\s+0 {2}5;$/m);
    expect(low).toMatch(/^\s+1 {2}3;$/m);
    expect(low).toMatch(/add_header X-RateLimit-Limit 2 always;/);
  });

  it('refuses a template whose limit and reported limit disagree', () => {
    const drifted = shipped.replace('burst=2999 nodelay', 'burst=499 nodelay');
    expect(() => renderNginxConfig(drifted, options)).toThrow(
      /client flood limit enforces 500 but its 429 reports 3000/,
    );
  });
});
