import { z } from 'zod';
import {
  DEFAULT_OS_RELEASE,
  MOUNT_KINDS,
  MOUNT_KIND_NAMES,
  NAME_RE,
  OS_RELEASE_NAMES,
  PROFILES,
  PROFILE_NAMES,
  type ProfileSpec,
  TARGET_KINDS,
} from '../catalog.js';
import { SCENARIOS, SCENARIO_NAMES, type ScenarioName, boundScenario } from '../scenarios/index.js';
// Only the file check (fs, no QEMU): whether a named disk image is one is a lab-definition error.
import { checkUserImage } from '../targets/local/flatcar-image.js';

/**
 * Names become file names, docker volume names and labels; keeping them to
 * this alphabet means they can never carry shell metacharacters.
 */
const name = z.string().regex(NAME_RE, {
  message: 'expected a name of lowercase letters, digits and "-", starting with a letter, at most 31 characters',
});

const host = z
  .object({
    name: name.describe('unique in the lab'),
    profile: z.enum(PROFILE_NAMES).describe('the storage profile prepare sets up (see Storage profiles)'),
    /** Debian release the host runs (its engine versions come with it; see OS_RELEASES). */
    os: z
      .enum(OS_RELEASE_NAMES)
      .default(DEFAULT_OS_RELEASE)
      .describe('the Debian release, and with it the engine (see Stacks)'),
    cpus: z.number().int().min(1).max(64).default(2).describe("local target: the VM's CPUs"),
    memoryMiB: z
      .number()
      .int()
      .min(512)
      .max(262144)
      .default(1024)
      .describe("local target: the VM's memory; two hosts fit in 4 GiB"),
    /** Size of the data disk the profile formats. */
    diskGiB: z
      .number()
      .int()
      .min(1)
      .max(16384)
      .default(4)
      .describe('the data disk the profile formats; a scenario may use at most half of it'),
    /**
     * Local target, flatcar profile: the Flatcar QEMU image file to boot (qcow2
     * or raw; relative to the lab file's folder, made absolute by load.ts). Read only.
     */
    image: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        'local target, `flatcar` profile only: your Flatcar QEMU image, relative to the lab file (see targets.md)',
      ),
  })
  .strict();

const localTarget = z
  .object({
    /** kvm when /dev/kvm really boots a guest, tcg otherwise (auto). */
    accel: z
      .enum(['auto', 'kvm', 'tcg'])
      .default('auto')
      .describe('auto: KVM if a guest really boots under it, else TCG; `LAYERLAB_ACCEL` overrides'),
    bootTimeoutSec: z.number().int().min(10).max(3600).default(300).describe('how long `up` waits for SSH'),
    /**
     * Under TCG, the translated-code cache of each VM (QEMU's tb-size), which
     * each VM may use as memory beside its own. When it fills, QEMU drops
     * every translation and translates again. Not QEMU's 1024: with it, 12
     * fio trials flushed 3 times instead of 11-13 but ran only 1-3% faster,
     * one cold `up` was slower (96 s against 120 s), and
     * each qemu took ~850 MiB more (README: "TCG's code cache").
     */
    tcgCacheMiB: z
      .number()
      .int()
      .min(32)
      .max(8192)
      .default(256)
      .describe(
        "under TCG, each VM's translated-code cache (QEMU's `tb-size`), memory beside the VM's; see targets.md",
      ),
    /**
     * How QEMU submits the VMs' disk I/O (its drives' `aio=`), always with
     * cache=none: native (Linux AIO), threads (a pool of threads doing
     * pread/pwrite) or io_uring. native, the default, is what every figure
     * so far was measured with; on a machine that is itself a VM, guests
     * have seen writes under native that never completed, so the other two
     * can be measured against it (bench:vm-variants --knob disk-aio).
     */
    diskAio: z
      .enum(['native', 'threads', 'io_uring'])
      .default('native')
      .describe("how QEMU submits the VMs' disk I/O (the drives' `aio=`, with `cache=none`); see targets.md"),
    /**
     * virtiofsd's cache mode for mount kind hostshare: none (every access
     * goes to this machine), auto (attributes and data kept until the file
     * changes on this machine), always (kept until the guest drops them).
     */
    virtiofsCache: z
      .enum(['none', 'auto', 'always'])
      .default('auto')
      .describe("virtiofsd's cache mode for mount kind `hostshare`"),
  })
  .strict();

/**
 * Cloud hosts (infra/aws). Operator facts (owner, SSH source CIDRs, expiry)
 * are stack config, not lab facts: see infra/README.md.
 */
const awsTarget = z
  .object({
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, { message: 'expected an AWS region such as eu-central-1' })
      .default('eu-central-1')
      .describe('the AWS region the hosts run in'),
    /**
     * m6i.xlarge: the smallest m6i whose sustained EBS throughput (156.25 MB/s)
     * is above gp3's default 125 MiB/s; m6i.large sustains 81.25 MB/s and
     * would measure itself, not the volume (lab/targets/aws/instance-types.ts).
     */
    instanceType: z
      .string()
      .regex(/^[a-z0-9]+\.[a-z0-9]+$/, { message: 'expected an instance type such as m6i.xlarge' })
      .default('m6i.xlarge')
      .describe('the EC2 instance type of every host; use a non-burstable type'),
    /** gp3 has a fixed baseline; gp2/st1 run on burst credits that skew long runs. */
    volumeType: z
      .enum(['gp3', 'gp2', 'io1', 'io2', 'st1'])
      .default('gp3')
      .describe('EBS type of the data disk; gp2 and st1 run on burst credits'),
    iops: z
      .number()
      .int()
      .min(100)
      .max(256000)
      .optional()
      .describe('provisioned IOPS of the data disk: gp3, io1, io2 only; required for io1 and io2'),
    /** MiB/s, gp3 only. */
    throughput: z.number().int().min(125).max(1000).optional().describe('provisioned MiB/s of the data disk: gp3 only'),
    rootGiB: z.number().int().min(8).max(1024).default(16).describe('size of the root volume'),
    spot: z
      .boolean()
      .default(false)
      .describe('spot instances: about 60% cheaper; an interrupted host fails its remaining trials'),
    /** create: a VPC of the lab's own, removed with it; default: the account's default VPC. */
    vpc: z
      .enum(['create', 'default'])
      .default('create')
      .describe("a VPC of the lab's own, removed with it, or the account's default VPC"),
  })
  .strict()
  .describe('aws target settings')
  .superRefine((aws, ctx) => {
    if (aws.iops !== undefined && !['gp3', 'io1', 'io2'].includes(aws.volumeType)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['iops'],
        message: `iops applies to gp3, io1 and io2, not ${aws.volumeType}`,
      });
    }
    if (aws.iops === undefined && (aws.volumeType === 'io1' || aws.volumeType === 'io2')) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['iops'], message: `volumeType ${aws.volumeType} needs iops` });
    }
    if (aws.throughput !== undefined && aws.volumeType !== 'gp3') {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['throughput'], message: 'throughput applies to gp3 only' });
    }
  });

const target = z
  .object({
    kind: z
      .enum(TARGET_KINDS)
      .default('local')
      .describe(
        "where the hosts come from: `local` QEMU VMs, `aws` cloud hosts, `static` machines you have (see targets.md); the CLI's `--target` and `--inventory` override it",
      ),
    /**
     * serial: one trial at a time across all hosts (hosts share one machine
     * and would steal CPU from each other); parallel: one trial per host at
     * once. Default: serial for local, parallel elsewhere.
     */
    trials: z
      .enum(['serial', 'parallel'])
      .optional()
      .describe('none means serial on `local` (VMs share the CPUs), parallel elsewhere'),
    local: localTarget.default({}).describe('local target settings'),
    aws: awsTarget.default({}),
  })
  .strict();

/** An optional `value` per scenario name, nothing else (scenarioMounts, scenarioRepetitions). */
const perScenario = <T extends z.ZodTypeAny>(value: T) =>
  z
    .object(
      Object.fromEntries(SCENARIO_NAMES.map((n) => [n, value.optional()])) as { [K in ScenarioName]: z.ZodOptional<T> },
    )
    .strict();

const scenarioShape = Object.fromEntries(SCENARIO_NAMES.map((n) => [n, SCENARIOS[n].params.optional()])) as {
  [K in ScenarioName]: z.ZodOptional<(typeof SCENARIOS)[K]['params']>;
};

const labObject = z
  .object({
    name: name.describe('`[a-z][a-z0-9-]`, at most 31 characters; names files, volumes, VMs, the Pulumi stack'),
    description: z
      .string()
      .max(2000)
      .optional()
      .describe('up to 2000 characters, for the reader; recorded with the lab in `manifest.json`'),
    /** Seed of the trial order; recorded in plan.json. */
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .default(1)
      .describe('seed of the trial order, recorded in `plan.json`'),
    target: target.default({}).describe("where the hosts come from, and each target's settings"),
    hosts: z.array(host).min(1).max(32).describe('the hosts to compare'),
    scenarios: z
      .object(scenarioShape)
      .strict()
      .refine((s) => Object.values(s).some((v) => v !== undefined), { message: 'expected at least one scenario' })
      .describe('the scenarios to run and their parameters; at least one'),
    mounts: z
      .array(z.enum(MOUNT_KIND_NAMES))
      .min(1)
      .describe('where the data of mount-dependent scenarios lives (see Mount kinds)'),
    /**
     * Narrows `mounts` for single scenarios (e.g. db-import on volume and
     * hostshare only); every listed kind must be one of the lab's `mounts`.
     */
    scenarioMounts: perScenario(z.array(z.enum(MOUNT_KIND_NAMES)).min(1).describe('kinds from `mounts`, in its order'))
      .default({})
      .describe('narrows `mounts` for one scenario'),
    /**
     * Fewer repetitions for single scenarios than the lab's: a scenario whose
     * outcome is yes or no (permissions, lifetime) answers in one trial per
     * host, while the timed ones need all of theirs. Its trials stop after this
     * many repetitions; the rest of the run goes on interleaved as before.
     */
    scenarioRepetitions: perScenario(
      z.number().int().min(1).max(1000).describe('its trials stop after this repetition; the rest stay interleaved'),
    )
      .default({})
      .describe('fewer repetitions for one scenario'),
    /**
     * Pairs that are the same by construction — two mount kinds, or two
     * hosts of one profile — checked in every report as A/A pairs beside the
     * catalog's own (volume and bind): a difference there is a warning about
     * the lab, not a finding.
     */
    equivalent: z
      .array(z.tuple([z.string(), z.string()]))
      .max(64)
      .default([])
      .describe(
        'extra A/A pairs beside volume/bind: two mount kinds, or two hosts of one profile, e.g. `[[xfs, xfs2]]`',
      ),
    /**
     * A fixed count, or a stop rule: at least `min` repetitions, then more
     * (interleaved as always) until every compared pair's interval is
     * narrower than `targetCiWidth`, or `max`, or the time budget is reached.
     */
    repetitions: z
      .union([
        z
          .number()
          .int()
          .min(1)
          .max(1000)
          .transform((n) => ({ min: n, max: n, targetCiWidth: undefined, budgetMinutes: undefined })),
        z
          .object({
            min: z.number().int().min(1).max(1000).describe('stop rule: at least this many'),
            max: z.number().int().min(1).max(1000).describe('stop rule: at most this many'),
            /** Width (hi − lo) of the 95% interval of every typical ratio to reach, e.g. 0.1. */
            targetCiWidth: z
              .number()
              .gt(0)
              .max(10)
              .optional()
              .describe("stop when every compared pair's 95% interval of the typical ratio is narrower (e.g. `0.10`)"),
            budgetMinutes: z
              .number()
              .gt(0)
              .max(7 * 24 * 60)
              .optional()
              .describe('stop when one more repetition would not fit'),
          })
          .strict()
          .refine((r) => r.max >= r.min, { message: 'max must be >= min', path: ['max'] }),
      ])
      .describe(
        'runs of every cell: a count, or a stop rule `{ min, max, targetCiWidth, budgetMinutes }` (see Repetitions)',
      ),
  })
  .strict();

type Lab = z.output<typeof labObject>;
/** Reports a problem at a path of the lab definition (load.ts turns the path into file:line). */
type Issue = (path: (string | number)[], message: string) => void;

/** The host's profile runs on its os release (flatcar brings its own OS). */
function checkRelease(h: Lab['hosts'][number], i: number, issue: Issue): void {
  const profile = PROFILES[h.profile];
  const releases: readonly string[] = profile.releases;
  if (profile.image === 'flatcar') {
    if (h.os !== DEFAULT_OS_RELEASE) {
      issue(
        ['hosts', i, 'os'],
        `profile ${h.profile} boots Flatcar Container Linux, not Debian: os ${h.os} does not apply; remove os from this host`,
      );
    }
  } else if (!releases.includes(h.os)) {
    issue(
      ['hosts', i, 'os'],
      `profile ${h.profile} (${profile.engine} ${profile.storageDriver}) cannot run on os ${h.os} (runs on ${releases.join(', ')})`,
    );
  }
}

/** How a profile the local target boots only from a user's image gets one (empty for every other case). */
function userImageHint(spec: ProfileSpec, kind: string): string {
  if (kind !== 'local' || !spec.localUserImage) return '';
  const { fileName, url } = spec.localUserImage;
  return ` without image: download Flatcar's QEMU image (${url}), keep it as ${fileName} and name it in this host as \`image: ${fileName}\` (relative to the lab file's folder)`;
}

/** A host's `image:` is for a local host of a profile booted from the user's image, and names a qcow2 or raw file. */
function checkImage(lab: Lab, h: Lab['hosts'][number], i: number, issue: Issue): void {
  if (h.image === undefined) return;
  const path = ['hosts', i, 'image'];
  const kind = lab.target.kind;
  if (kind !== 'local') {
    issue(
      path,
      `image: applies to target local only (on target ${kind} a host runs ${kind === 'aws' ? 'the machine image the cloud program picks' : 'what its owner installed'}); remove it from this host`,
    );
    return;
  }
  const spec: ProfileSpec = PROFILES[h.profile];
  if (!spec.localUserImage) {
    const takers = PROFILE_NAMES.filter((p) => (PROFILES[p] as ProfileSpec).localUserImage);
    issue(
      path,
      `profile ${h.profile} boots layerlab's own Debian guest image; image: is only for profile ${takers.join(', ')}; remove it or change the profile`,
    );
    return;
  }
  const check = checkUserImage(h.image);
  if ('problem' in check) issue(path, check.problem);
}

/** Every host's profile runs on the lab's target and its os release; host names are unique. */
function checkHosts(lab: Lab, issue: Issue): void {
  const seen = new Map<string, number>();
  lab.hosts.forEach((h, i) => {
    const spec: ProfileSpec = PROFILES[h.profile];
    const targets: readonly string[] = spec.targets;
    const fromUserImage = lab.target.kind === 'local' && !!spec.localUserImage && h.image !== undefined;
    if (!targets.includes(lab.target.kind) && !fromUserImage) {
      issue(
        ['hosts', i, 'profile'],
        `profile ${h.profile} cannot run on target ${lab.target.kind} (runs on ${targets.join(', ')})${userImageHint(spec, lab.target.kind)}`,
      );
    }
    checkRelease(h, i, issue);
    checkImage(lab, h, i, issue);
    const first = seen.get(h.name);
    if (first !== undefined) issue(['hosts', i, 'name'], `duplicate host name "${h.name}" (also hosts[${first}].name)`);
    else seen.set(h.name, i);
  });
}

/** Mount kinds are unique and run on the lab's target. */
function checkMounts(lab: Lab, issue: Issue): void {
  if (new Set(lab.mounts).size !== lab.mounts.length) issue(['mounts'], 'duplicate mount kind');
  lab.mounts.forEach((m, i) => {
    const targets: readonly string[] = MOUNT_KINDS[m].targets;
    if (!targets.includes(lab.target.kind)) {
      issue(
        ['mounts', i],
        `mount kind ${m} (${MOUNT_KINDS[m].description}) runs only on target ${targets.join(', ')}; remove it from mounts for target ${lab.target.kind}`,
      );
    }
  });
}

/**
 * Every host's engine runs the scenario's guest script: a Podman host in a
 * scenario whose script needs Docker (permissions: `docker run -v` creating a
 * missing host path) is refused by name.
 */
function checkEngines(lab: Lab, scenarioName: ScenarioName, issue: Issue): void {
  const engines: readonly string[] = SCENARIOS[scenarioName].engines ?? ['docker'];
  lab.hosts.forEach((h, i) => {
    const engine = PROFILES[h.profile].engine;
    if (!engines.includes(engine)) {
      issue(
        ['hosts', i, 'profile'],
        `scenario ${scenarioName} runs on ${engines.join(', ')} only; host ${h.name} runs ${engine} (profile ${h.profile}): give it a ${engines.join('/')} profile or run ${scenarioName} in another lab`,
      );
    }
  });
}

/** Each enabled scenario fits on every host's data disk and supports the mount kinds it is given. */
function checkScenarios(lab: Lab, issue: Issue): void {
  for (const scenarioName of SCENARIO_NAMES) {
    if (lab.scenarios[scenarioName] === undefined) continue;
    const scenario = boundScenario(lab, scenarioName);
    const bytes = scenario.diskBytes();
    lab.hosts.forEach((h, i) => {
      // Leave room for the filesystem, docker's own data and the image.
      if (bytes > h.diskGiB * 1024 ** 3 * 0.5) {
        issue(
          ['hosts', i, 'diskGiB'],
          `data disk of ${h.diskGiB} GiB is too small for scenario ${scenarioName} (needs ${bytes} bytes, at most half the disk)`,
        );
      }
    });
    checkEngines(lab, scenarioName, issue);
    const narrowed = lab.scenarioMounts[scenarioName];
    const unsupported = (narrowed ?? lab.mounts).filter((m) => !scenario.mounts.includes(m));
    // A scenario without mount kinds brings its own storage: the list does not apply.
    if (scenario.mounts.length && unsupported.length) {
      issue(
        narrowed ? ['scenarioMounts', scenarioName] : ['mounts'],
        `scenario ${scenarioName} cannot run on mount kind(s) ${unsupported.join(', ')} (supports ${scenario.mounts.join(', ')}); narrow its list under scenarioMounts`,
      );
    }
  }
}

/** `equivalent:` pairs name two different mount kinds of the lab, or two different hosts. */
function checkEquivalent(lab: Lab, issue: Issue): void {
  const mountSet = new Set<string>(lab.mounts);
  const hostNames = new Set(lab.hosts.map((h) => h.name));
  lab.equivalent.forEach(([a, b], i) => {
    const bothMounts = mountSet.has(a) && mountSet.has(b);
    const bothHosts = hostNames.has(a) && hostNames.has(b);
    if (a === b || !(bothMounts || bothHosts)) {
      issue(
        ['equivalent', i],
        `expected two different mount kinds of mounts (${lab.mounts.join(', ')}) or two different host names (${[...hostNames].join(', ')}); got ${a}, ${b}`,
      );
    }
  });
}

/** scenarioMounts only narrows the lab's mounts, for enabled scenarios that take mount kinds. */
function checkScenarioMounts(lab: Lab, issue: Issue): void {
  for (const scenarioName of SCENARIO_NAMES) {
    const narrowed = lab.scenarioMounts[scenarioName];
    if (!narrowed) continue;
    const path = ['scenarioMounts', scenarioName];
    if (lab.scenarios[scenarioName] === undefined) issue(path, `scenario ${scenarioName} is not in scenarios`);
    else if (!SCENARIOS[scenarioName].mounts.length) {
      issue(
        path,
        `scenario ${scenarioName} brings its own storage and takes no mount kinds; remove it from scenarioMounts`,
      );
    }
    if (new Set(narrowed).size !== narrowed.length) issue(path, 'duplicate mount kind');
    const outside = narrowed.filter((m) => !lab.mounts.includes(m));
    if (outside.length) {
      issue(
        path,
        `mount kind(s) ${outside.join(', ')} not in the lab's mounts (${lab.mounts.join(', ')}); scenarioMounts only narrows that list`,
      );
    }
  }
}

/** scenarioRepetitions names enabled scenarios and caps them below the lab's repetitions. */
function checkScenarioRepetitions(lab: Lab, issue: Issue): void {
  for (const scenarioName of SCENARIO_NAMES) {
    const cap = lab.scenarioRepetitions[scenarioName];
    if (cap === undefined) continue;
    const path = ['scenarioRepetitions', scenarioName];
    if (lab.scenarios[scenarioName] === undefined) issue(path, `scenario ${scenarioName} is not in scenarios`);
    if (cap >= lab.repetitions.max) {
      issue(
        path,
        `${cap} is not fewer than the lab's repetitions (${lab.repetitions.max}), so it changes nothing; lower it or remove it`,
      );
    }
  }
}

export const labSchema = labObject
  .describe('A layerlab lab definition (docs/lab-definition.md)')
  .superRefine((lab, ctx) => {
    const issue: Issue = (path, message) => ctx.addIssue({ code: z.ZodIssueCode.custom, path, message });
    checkHosts(lab, issue);
    checkMounts(lab, issue);
    checkScenarios(lab, issue);
    checkEquivalent(lab, issue);
    checkScenarioMounts(lab, issue);
    checkScenarioRepetitions(lab, issue);
  });

export type LabDefinition = z.output<typeof labSchema>;
export type HostDefinition = LabDefinition['hosts'][number];

export function trialMode(lab: LabDefinition): 'serial' | 'parallel' {
  return lab.target.trials ?? (lab.target.kind === 'local' ? 'serial' : 'parallel');
}

export function enabledScenarios(lab: LabDefinition): ScenarioName[] {
  return SCENARIO_NAMES.filter((n) => lab.scenarios[n] !== undefined);
}
