import { OS_RELEASES, type OsRelease, PROFILES, type ProfileName, type ProfileSpec } from '../../catalog.js';

/**
 * Read-only facts of a machine, one `key=value` line each: its os-release and
 * the version of each engine CLI it has (empty when it has none). Sent on
 * stdin before anything is pushed.
 */
export const HOST_FACTS_SCRIPT = `set -u
. /etc/os-release 2>/dev/null || true
printf 'id=%s\\nversion_id=%s\\npretty=%s\\n' "\${ID:-}" "\${VERSION_ID:-}" "\${PRETTY_NAME:-}"
printf 'docker=%s\\n' "$(command -v docker >/dev/null && docker version --format '{{.Client.Version}}' 2>/dev/null | head -n1)"
printf 'podman=%s\\n' "$(command -v podman >/dev/null && podman version --format '{{.Client.Version}}' 2>/dev/null | head -n1)"
`;

export interface HostFacts {
  id: string;
  versionId: string;
  pretty: string;
  /** Engine CLI versions, '' when absent. */
  docker: string;
  podman: string;
}

export function parseHostFacts(text: string): HostFacts {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) values.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  const get = (k: string) => values.get(k) ?? '';
  return {
    id: get('id'),
    versionId: get('version_id'),
    pretty: get('pretty'),
    docker: get('docker'),
    podman: get('podman'),
  };
}

/** "debian-13" -> "13": the os-release VERSION_ID of a Debian release. */
function versionIdOf(release: OsRelease): string {
  return release.replace(/^debian-/, '');
}

/**
 * Why a machine cannot run `profile` as the lab's host of release `os`, or
 * nothing: a Debian machine of another release than the lab's `os`; a
 * Flatcar profile on anything else; the profile's engine missing, or of a
 * major version without what the profile needs (devicemapper after Engine 24,
 * the containerd image store before 24). A machine that is not Debian keeps
 * its engine check; its release has no Debian name to compare.
 */
export function stackProblems(facts: HostFacts, profile: ProfileName, os: OsRelease): string[] {
  const spec: ProfileSpec = PROFILES[profile];
  const problems: string[] = [];
  const shown = facts.pretty || facts.id || 'an unknown OS';
  if (spec.image === 'flatcar') {
    if (facts.id !== 'flatcar')
      problems.push(`profile ${profile} needs Flatcar Container Linux; the machine runs ${shown}`);
  } else if (facts.id === 'debian' && facts.versionId !== versionIdOf(os)) {
    problems.push(
      `the lab says os ${os} (${OS_RELEASES[os].codename}); the machine runs ${shown}: set os to its release in the lab, or use a ${os} machine`,
    );
  }
  const version = facts[spec.engine];
  if (!version) {
    problems.push(`profile ${profile} needs ${spec.engine}; the machine has no ${spec.engine} command`);
    return problems;
  }
  const major = Number.parseInt(version, 10);
  const { min, below } = spec.engineMajor ?? {};
  if (!Number.isFinite(major)) {
    if (min !== undefined || below !== undefined) {
      problems.push(`cannot read the major version of ${spec.engine} ${version}, which profile ${profile} depends on`);
    }
  } else if ((min !== undefined && major < min) || (below !== undefined && major >= below)) {
    const range = [min !== undefined ? `>= ${min}` : '', below !== undefined ? `< ${below}` : ''].filter(Boolean);
    problems.push(
      `profile ${profile} (${spec.storageDriver}) needs ${spec.engine} ${range.join(' and ')}; the machine has ${spec.engine} ${version}`,
    );
  }
  return problems;
}
