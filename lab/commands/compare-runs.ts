import { groupCells, seriesOf } from '../analyze/comparison-rows.js';
import { type Comparison, decideFamily, testPair } from '../analyze/verdict.js';
import { loadRun } from '../record/load.js';
import { SCENARIOS, type ScenarioName } from '../scenarios/index.js';
import type { MetricSpec } from '../scenarios/types.js';

export interface RunDelta {
  key: string;
  host: string;
  mount: string;
  scenario: string;
  series: string;
  metric: MetricSpec;
  result: Comparison;
  kind: 'regression' | 'improvement' | 'no-difference' | 'not-enough-runs' | 'undefined';
}

/**
 * Compares a newer run with an older one, cell by cell (same host, mount,
 * series and metric), with the same test as the report: a regression is
 * only claimed when the new run is worse and the difference survives the
 * false-discovery control over every cell compared (a nightly comparison of
 * hundreds of cells would otherwise flag something nearly every night).
 */
export function compareRuns(oldDir: string, newDir: string): RunDelta[] {
  const before = groupCells(loadRun(oldDir).samples);
  const after = groupCells(loadRun(newDir).samples);
  const tested: (Omit<RunDelta, 'kind'> & { better: MetricSpec['better']; nameA: string })[] = [];
  for (const [key, now] of after) {
    const then = before.get(key);
    if (!then) continue;
    const scenario = SCENARIOS[now.sample.scenario as ScenarioName];
    const metric = scenario?.metrics.find((m) => m.name === now.sample.metric && m.compare);
    if (!metric) continue;
    tested.push({
      key,
      host: now.sample.host,
      mount: now.sample.mount,
      scenario: now.sample.scenario,
      series: seriesOf(now.sample),
      metric,
      result: testPair(now.values, then.values),
      better: metric.better,
      nameA: 'new',
    });
  }
  const decided = decideFamily(tested);
  return tested.map(({ better: _b, nameA: _n, ...delta }, i) => {
    const result = decided[i] as Comparison;
    const kind =
      result.verdict === 'a-better'
        ? 'improvement'
        : result.verdict === 'b-better'
          ? 'regression'
          : result.verdict === 'no-difference'
            ? 'no-difference'
            : result.verdict;
    return { ...delta, result, kind };
  });
}

export function formatDeltas(oldId: string, newId: string, deltas: readonly RunDelta[]): string {
  const count = (k: RunDelta['kind']) => deltas.filter((d) => d.kind === k).length;
  const lines = [
    `# layerlab compare: ${newId} (new) vs ${oldId} (old)`,
    '',
    `${deltas.length} cells: **${count('regression')} regression(s)**, ${count('improvement')} improvement(s), ${count('no-difference')} with no consistent difference, ${count('not-enough-runs')} with not enough runs.`,
    '',
    '| scenario | host | mount | series | metric | n new/old | new vs old |',
    '|---|---|---|---|---|---|---|',
  ];
  const order: RunDelta['kind'][] = ['regression', 'improvement', 'no-difference', 'not-enough-runs', 'undefined'];
  for (const d of [...deltas].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind))) {
    const flag = d.kind === 'regression' ? '**REGRESSION** ' : '';
    lines.push(
      `| ${d.scenario} | ${d.host} | ${d.mount} | ${d.series} | ${d.metric.name} (${d.metric.better} is better) | ${d.result.nA}/${d.result.nB} | ${flag}${d.result.text} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
