import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { PROFILE_NAMES } from '../../catalog.js';
import { NAME_RE } from '../../catalog.js';
import { parseYamlWithSchema, readInputFile } from '../../definition/load.js';
import type { LabDefinition } from '../../definition/schema.js';
import { UserError, errorMessage } from '../../errors.js';
import { readBanner } from '../../ssh/banner.js';
import type { Inventory } from '../types.js';

/**
 * Machines you already have (like PerfKit Benchmarker's static VMs). Each
 * host: how to reach it, the key to log in with (a file; relative paths are
 * relative to the inventory file), its pinned host key, the data disk the
 * profile may format, and whether the machine is dedicated to the lab.
 */
const staticHost = z
  .object({
    name: z.string().regex(NAME_RE, { message: 'expected the name of a host in the lab definition' }),
    profile: z.enum(PROFILE_NAMES),
    address: z.string().regex(/^[A-Za-z0-9.:-]{1,253}$/, { message: 'expected a host name or IP address' }),
    port: z.number().int().min(1).max(65535).default(22),
    user: z
      .string()
      .regex(/^[a-z_][a-z0-9_-]{0,31}$/, { message: 'expected a login name' })
      .default('root'),
    key: z.string().min(1),
    hostKey: z.string().regex(/^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/=]+( .*)?$/, {
      message: 'expected an OpenSSH public-key line (e.g. the content of /etc/ssh/ssh_host_ed25519_key.pub)',
    }),
    dataDisk: z.string().regex(/^\/dev\/[A-Za-z0-9/_.:+-]+$/, { message: 'expected a block device path under /dev' }),
    // The owner's word that the machine is the lab's: without it, layerlab
    // refuses to change a host whose Docker holds anything it did not create.
    dedicated: z.boolean().default(false),
    labels: z.record(z.string()).default({}),
  })
  .strict();

export const staticInventorySchema = z.object({ hosts: z.array(staticHost).min(1) }).strict();
export type StaticInventoryFile = z.output<typeof staticInventorySchema>;

/** How long a static host may take to show its SSH banner before we refuse to start. */
const ANSWER_TIMEOUT_MS = 10_000;

export async function readStaticInventory(file: string): Promise<Inventory> {
  const parsed = parseYamlWithSchema(await readInputFile(file, 'inventory'), file, staticInventorySchema, 'inventory');
  const base = dirname(resolve(file));
  return {
    target: 'static',
    hosts: parsed.hosts.map(({ key, ...h }) => ({
      ...h,
      privateKeyPath: resolve(base, key),
      labels: { target: 'static', ...h.labels },
    })),
  };
}

/**
 * Everything that can be checked before anything starts (exit 2 otherwise):
 * the lab's hosts are all in the inventory with the same profile, every key
 * is readable, every host shows an SSH banner.
 */
export async function checkStaticInventory(file: string, inventory: Inventory, lab: LabDefinition): Promise<void> {
  const problems: string[] = [];
  const byName = new Map(inventory.hosts.map((h) => [h.name, h]));
  for (const host of lab.hosts) {
    const entry = byName.get(host.name);
    if (!entry) problems.push(`host ${host.name} of lab ${lab.name} is not in the inventory`);
    else if (entry.profile !== host.profile) {
      problems.push(`host ${host.name}: the inventory says profile ${entry.profile}, the lab says ${host.profile}`);
    }
  }
  const wanted = inventory.hosts.filter((h) => lab.hosts.some((l) => l.name === h.name));
  await Promise.all(
    wanted.map(async (h) => {
      try {
        await access(h.privateKeyPath, constants.R_OK);
        if (!(await readFile(h.privateKeyPath, 'utf8')).includes('PRIVATE KEY')) {
          problems.push(`host ${h.name}: key ${h.privateKeyPath} is not a private key file`);
        }
      } catch (err) {
        problems.push(`host ${h.name}: cannot read key ${h.privateKeyPath}: ${errorMessage(err)}`);
        return;
      }
      if (!(await readBanner(h.address, h.port, ANSWER_TIMEOUT_MS))) {
        problems.push(
          `host ${h.name}: no SSH answer from ${h.address}:${h.port} within ${ANSWER_TIMEOUT_MS / 1000} s (is it up, and is the port right?)`,
        );
      }
    }),
  );
  if (problems.length)
    throw new UserError(`${file}: ${problems.length} problem(s), nothing started:\n  ${problems.join('\n  ')}`);
}

/** The inventory restricted to the lab's hosts, in the lab's order. */
export function labHosts(inventory: Inventory, lab: LabDefinition): Inventory {
  const byName = new Map(inventory.hosts.map((h) => [h.name, h]));
  return { ...inventory, hosts: lab.hosts.flatMap((h) => byName.get(h.name) ?? []) };
}
