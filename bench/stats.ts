/**
 * Calibration and power of the shipped comparison (lab/analyze/verdict.ts,
 * `compare()` — the code the report runs, a family of one), by simulation:
 * pairs of samples from identical distributions (false-positive rate) and
 * with B shifted 10% and 20% (power), per runs per side and noise shape.
 * Seeded: the same table every time.
 *
 * Usage: npm run bench:stats [-- --json] [-- --pairs 10000]
 */
import { compare } from '../lab/analyze/verdict.ts';
import { mulberry32 } from '../lab/util/rng.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const pairsArg = args.indexOf('--pairs');
const PAIRS = pairsArg >= 0 ? Number(args[pairsArg + 1]) : 10000;
if (!Number.isInteger(PAIRS) || PAIRS < 100) {
  process.stderr.write('bench:stats: --pairs takes a whole number of at least 100\n');
  process.exit(2);
}

const random = mulberry32(20261201);

/** Standard normal (Box–Muller). */
function gauss(): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Student t with 3 degrees of freedom, scaled to unit variance (its variance is 3). */
function t3(): number {
  let chi = 0;
  for (let i = 0; i < 3; i++) chi += gauss() ** 2;
  return gauss() / Math.sqrt(chi / 3) / Math.sqrt(3);
}

/** A trial's value around 100 (a positive measurement: tiny floor for the rare negative normal draw). */
const positive = (v: number) => Math.max(v, 1e-6);

const NOISES: Record<string, () => number> = {
  'normal-cv5': () => positive(100 * (1 + 0.05 * gauss())),
  'normal-cv10': () => positive(100 * (1 + 0.1 * gauss())),
  'normal-cv30': () => positive(100 * (1 + 0.3 * gauss())),
  'lognormal-cv5': () => 100 * Math.exp(Math.sqrt(Math.log(1 + 0.05 ** 2)) * gauss()),
  'lognormal-cv10': () => 100 * Math.exp(Math.sqrt(Math.log(1 + 0.1 ** 2)) * gauss()),
  'lognormal-cv30': () => 100 * Math.exp(Math.sqrt(Math.log(1 + 0.3 ** 2)) * gauss()),
  't3-cv10': () => positive(100 * (1 + 0.1 * t3())),
  // 5% of trials twice as slow (a hiccup of the host), around normal noise at CV 10%.
  'outliers5%x2-cv10': () => positive(100 * (1 + 0.1 * gauss()) * (random() < 0.05 ? 2 : 1)),
};

const RUNS = [3, 4, 5, 8, 10, 20];

/** Share of pairs in which compare() claims a difference, B's values multiplied by `factor`. */
function claimRate(n: number, draw: () => number, factor: number): number {
  let claims = 0;
  for (let i = 0; i < PAIRS; i++) {
    const a = Array.from({ length: n }, draw);
    const b = Array.from({ length: n }, () => draw() * factor);
    const { verdict } = compare(a, b, 'higher');
    if (verdict === 'a-better' || verdict === 'b-better') claims++;
  }
  return claims / PAIRS;
}

const started = performance.now();
const rows = [];
for (const n of RUNS) {
  for (const [noise, draw] of Object.entries(NOISES)) {
    rows.push({
      n,
      noise,
      fpr: claimRate(n, draw, 1),
      power10: claimRate(n, draw, 1.1),
      power20: claimRate(n, draw, 1.2),
    });
  }
}
const seconds = (performance.now() - started) / 1000;

if (json) {
  process.stdout.write(`${JSON.stringify({ pairs: PAIRS, seconds: Number(seconds.toFixed(1)), rows })}\n`);
} else {
  const p = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);
  console.log(
    `exact rank-sum test, Hodges–Lehmann ratio; ${PAIRS} pairs per cell and shift; nominal false-positive rate 5%`,
  );
  console.log(
    `${'n/side'.padEnd(7)}${'noise'.padEnd(20)}${'fpr'.padStart(7)}${'power10'.padStart(9)}${'power20'.padStart(9)}`,
  );
  for (const r of rows) {
    console.log(`${String(r.n).padEnd(7)}${r.noise.padEnd(20)}${p(r.fpr)}  ${p(r.power10)}  ${p(r.power20)}`);
  }
  const worst = rows.reduce((w, r) => (r.fpr > w.fpr ? r : w));
  console.log(
    `highest false-positive rate: ${p(worst.fpr).trim()} (n = ${worst.n}, ${worst.noise}); ${seconds.toFixed(1)} s`,
  );
}
