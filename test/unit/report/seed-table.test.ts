/** The seed-parameter page's Markdown: one table per scenario, a column per lab, same or unlike per line. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parameterLines } from '../../../lab/report/seed-facts.ts';
import type { SeedParameter } from '../../../lab/report/seed-facts.ts';
import { seedParameterMarkdown } from '../../../lab/report/seed-table.ts';

const source = { seed: '002', line: 6, words: 'a | b' };
const parameters = [
  { label: 'clients', seed: 4, run: { param: 'clients' }, source },
  { label: 'dump', seed: '10M', run: { measured: { metric: 'dump_bytes', tolerance: 0.1 } }, source },
];

describe('seedParameterMarkdown', () => {
  it('a row per parameter: seed, each lab with same or unlike, the source; a measured one is per run', () => {
    const md = seedParameterMarkdown([
      {
        seed: '002',
        scenario: 'dbench',
        claims: 2,
        parameters,
        labs: [
          { file: 'a.yaml', lines: parameterLines(parameters, { clients: 4 }, 5) },
          { file: 'b.yaml', lines: parameterLines(parameters, { clients: 2 }, 5) },
        ],
      },
    ]);
    assert.match(md, /\n## Seed 002: dbench\n\n2 claims of the report rest on these parameters\.\n/);
    assert.match(md, /\n\| parameter \| seed \| `a\.yaml` \| `b\.yaml` \| source \|\n\|---\|---\|---\|---\|---\|\n/);
    assert.ok(
      md.includes('| clients | 4 | 4 — same | 2 — **unlike** | seed 002 line 6: “a \\| b” |'),
      'the clients row, the source escaped',
    );
    assert.ok(
      md.includes('| dump | 10 MiB | measured in each run (`dump_bytes`), the same within 10% — per run |'),
      md,
    );
  });
});

describe("seedParameterMarkdown: a container network is the target's", () => {
  it("the lab's target's first, then what the other target does, each with same or unlike", () => {
    const network: SeedParameter[] = [
      {
        label: 'network',
        seed: 'the default bridge',
        run: {
          network: { says: { default: 'bridge (target aws)', none: 'none (target local or static)' }, same: 'default' },
        },
        source,
      },
    ];
    const md = seedParameterMarkdown([
      {
        seed: '004',
        scenario: 'lifecycle',
        claims: 1,
        parameters: network,
        labs: [
          { file: 'local.yaml', lines: parameterLines(network, {}, 5, { network: 'none' }) },
          { file: 'aws.yaml', lines: parameterLines(network, {}, 5, { network: 'default' }) },
        ],
      },
    ]);
    assert.ok(
      md.includes(
        '| network | the default bridge | none (target local or static) — **unlike**; on another target: bridge (target aws) — same | bridge (target aws) — same; on another target: none (target local or static) — **unlike** |',
      ),
      md,
    );
  });
});
