/**
 * The latency/throughput chart: a Vega-Lite spec compiled and rendered to SVG by Vega's Node
 * API (no browser, no canvas). Per run, in the table's order: requests per second, p50 / p99 /
 * p99.9 latency, and the server CPU time per request (all on log scales).
 */
import { serverCpuPerRequestUs, type BenchResults } from './results';

export async function renderChart(results: BenchResults): Promise<string> {
  // Both packages are ES modules; this file is compiled as CommonJS.
  const vega = await import('vega');
  const vegaLite = await import('vega-lite');
  const values = results.runs.map((r) => ({
    run: r.id,
    kind:
      r.kind === 'baseline'
        ? 'baseline'
        : r.against.includes('nginx')
          ? 'service via nginx'
          : 'service direct',
    rps: r.result.rps,
    cpuUs: Math.round(serverCpuPerRequestUs(r)),
    p50: r.result.latencyMs.p50,
    p99: r.result.latencyMs.p99,
    p999: r.result.latencyMs.p999,
  }));
  const order = values.map((v) => v.run);
  const y = { field: 'run', type: 'nominal' as const, sort: order, title: null };
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `radar tiles bench, ${results.profile} run ${results.startedAt.slice(0, 16)}Z`,
      subtitle: `${results.machine.cpuModel}, ${results.machine.cores} cores, Node ${results.machine.node}`,
    },
    data: { values },
    spacing: 12,
    hconcat: [
      {
        width: 300,
        height: { step: 16 },
        encoding: {
          y,
          x: {
            field: 'rps',
            type: 'quantitative',
            title: 'requests / s (log scale)',
            scale: { type: 'log', domain: [50, 100_000] },
          },
        },
        layer: [
          {
            mark: { type: 'bar' },
            encoding: {
              // Bars on a log scale need an explicit base.
              x2: { datum: 50 },
              color: {
                field: 'kind',
                type: 'nominal',
                title: 'served by',
                scale: { scheme: 'tableau10' },
              },
            },
          },
          {
            mark: { type: 'text', align: 'left', dx: 3, fontSize: 9 },
            encoding: { text: { field: 'rps', type: 'quantitative', format: ',.0f' } },
          },
        ],
      },
      {
        width: 300,
        height: { step: 16 },
        transform: [
          { fold: ['p50', 'p99', 'p999'], as: ['percentile', 'ms'] },
          {
            calculate: "datum.percentile === 'p999' ? 'p99.9' : datum.percentile",
            as: 'percentile',
          },
        ],
        mark: { type: 'point', filled: true, size: 45 },
        encoding: {
          y: { ...y, axis: null },
          x: {
            field: 'ms',
            type: 'quantitative',
            scale: { type: 'log', domain: [0.1, 1000] },
            title: 'latency, ms (log scale)',
          },
          color: {
            field: 'percentile',
            type: 'nominal',
            title: 'latency',
            scale: { domain: ['p50', 'p99', 'p99.9'], range: ['#1b9e77', '#d95f02', '#7570b3'] },
          },
          shape: { field: 'percentile', type: 'nominal', legend: null },
        },
      },
      {
        width: 220,
        height: { step: 16 },
        encoding: {
          y: { ...y, axis: null },
          x: {
            field: 'cpuUs',
            type: 'quantitative',
            title: 'server CPU µs per request (log scale)',
            scale: { type: 'log', domain: [10, 10_000] },
          },
        },
        layer: [
          { mark: { type: 'bar', color: '#888888' }, encoding: { x2: { datum: 10 } } },
          {
            mark: { type: 'text', align: 'left', dx: 3, fontSize: 9 },
            encoding: { text: { field: 'cpuUs', type: 'quantitative', format: ',.0f' } },
          },
        ],
      },
    ],
    resolve: { scale: { color: 'independent' } },
    config: {
      font: 'sans-serif',
      axis: { labelFontSize: 10, labelLimit: 420 },
      legend: { orient: 'bottom', direction: 'horizontal' },
    },
  };
  const compiled = vegaLite.compile(spec as unknown as Parameters<typeof vegaLite.compile>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
