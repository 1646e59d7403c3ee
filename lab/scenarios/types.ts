import type { z } from 'zod';
import type { Engine, MountKind } from '../catalog.js';
import type { ScenarioReport } from '../report/model.js';
import type { MetricSpec } from './metric.js';

export type { MetricSpec } from './metric.js';

/** One measured value, before collection adds run/host/trial labels. */
export interface MeasuredValue {
  metric: string;
  value: number;
  unit: string;
  /** Scenario-specific labels, e.g. fio job and direction. */
  labels: Record<string, string>;
}

export interface ParseResult {
  values: MeasuredValue[];
  /** Why (part of) the raw output does not count; a trial with failures is failed. */
  failures: string[];
}

/**
 * A scenario is a folder: guest.sh runs on the host, the parser reads its raw
 * output on the controller, report.ts gives its report section and the seed
 * claims it answers; test/fixtures/<name>/ holds real raw outputs. The run
 * owns the lifecycle (PerfKit's model). test/unit/scenarios/index.test.ts
 * checks every registered scenario has all of these.
 */
export interface Scenario<P = unknown> {
  name: string;
  seed: string;
  summary: string;
  /** Parameters in the lab definition (strict; defaults filled in). */
  params: z.ZodType<P, z.ZodTypeDef, unknown>;
  /**
   * Mount kinds this scenario runs on, one trial per kind in the lab's
   * `mounts`. Empty: the scenario sets up its own storage and runs once per
   * host and repetition (mount "none").
   */
  mounts: readonly MountKind[];
  /** Tool images (recipes in guest/images/<name>.image) the guest script needs. */
  toolImages: readonly string[];
  /** Tool images its parameters add (lifecycle's large image); the lab loads them only then. */
  toolImagesFor?(params: P): readonly string[];
  /**
   * Engines its guest script has been run on (guest/lib.sh's ll_engine); a
   * host of another engine is refused at validation. Default: docker only.
   */
  engines?: readonly Engine[];
  /** The raw file `layerlab parse` reads and the parser is given. */
  rawFile: string;
  metrics: readonly MetricSpec[];
  /**
   * The one compared metric (`compare: true`) the report's at-a-glance
   * matrix shows for this scenario; the others are in its details. Absent
   * when nothing is compared (outcome scenarios).
   */
  matrixMetric?: string;
  /**
   * Series of this scenario that are ways of doing the same work (backup's
   * methods), compared with each other on each host beside the usual
   * comparisons: `label` is the sample label that names them, `order` the
   * order of the pairs. Only for scenarios without mount kinds (the rows name
   * the host alone); series of different work (fio's jobs) have none.
   */
  compareSeries?: { label: string; order: readonly string[] };
  /** Environment for guest.sh (LL_P_*): the only way parameters reach the host. */
  guestEnv(params: P): Record<string, string>;
  /** Rough guest seconds per trial (ETA before the first trial ends; the timeout is a multiple). */
  expectedSeconds(params: P): number;
  /**
   * The part of expectedSeconds the parameters fix, which no faster machine
   * shortens (fio's ramp and runtime, dbench's warm-up and duration);
   * none when absent. `validate` gives it as a KVM lab's lower bound.
   */
  timedSeconds?(params: P): number;
  /** Bytes the scenario writes on the data disk per trial (refused if it does not fit). */
  diskBytes(params: P): number;
  parse(raw: string): ParseResult;
  /** Its section of the report and the seed claims it answers (lab/scenarios/<name>/report.ts). */
  report: ScenarioReport;
}
