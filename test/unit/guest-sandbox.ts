/**
 * A temporary root shaped like a host's /opt/layerlab, for running guest
 * scripts in bash on this machine: guest/lib.sh (plus other guest/ files) and
 * scenarios' guest.sh at their relative places (a scenario script sources
 * ../../../guest/lib.sh from its own folder), lines appended to lib.sh that
 * point its folders into the root, and a bin folder for fake commands to put
 * first on PATH. Removed after the test file.
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after } from 'node:test';

const REPO = resolve(import.meta.dirname, '..', '..');

export interface GuestSandbox {
  root: string;
  /** Fake commands go here; `path` puts it first on PATH. */
  bin: string;
  path: string;
  /** Where scenario `name`'s guest.sh is in the sandbox. */
  script(name: string): string;
  /** Writes an executable bash script `bin/<name>` with this body. */
  fake(name: string, body: string): void;
  /** Writes `bin/curl`: ENGINE_API_CURL, a stand-in Docker Engine API. */
  fakeEngineApi(): void;
}

/** The id the stand-in Engine API gives the container it creates. */
export const FAKE_CONTAINER_ID = 'ab'.repeat(32);

/**
 * A stand-in for curl talking to the Docker Engine API's socket, with its state in
 * $FAKE: each curl process is logged as one line "curl <args>" in $FAKE/calls, and
 * each request in it (requests are separated by --next) is answered as the Engine
 * would, from files there:
 * - `container`: the arguments of the request that created "the" container, while it exists;
 * - `creates`: how many containers were created so far;
 * - `volume-<name>`: the creation body of volume <name>, while it exists;
 * - `exit-status`: the StatusCode that /wait answers (default 0);
 * - `state`: the container's State.Status that /json answers (default running;
 *   State.Running is true for running only); /stop answers 204 while it exists;
 * - `logs.1`, `logs.2`…: the container's log stream, its parts written one at a
 *   time with a pause between (a frame may be cut anywhere between parts);
 * - `c<N>/`: where it exists, `exit-status`, `state` and `logs.*` of the Nth
 *   container created (from 1) are taken from there instead;
 * - `fail-<word>`: a request whose path holds <word> answers 500.
 * HTTP errors fail the request only under --fail or --fail-with-body (exit 22),
 * --fail-early stops at the first, and curl's status is its last request's, as curl's.
 */
export const ENGINE_API_CURL = `printf 'curl %s\\n' "$*" >> "$FAKE/calls"
# --fail-early is global: the first failed request ends curl.
early=''
case " $* " in *' --fail-early '*) early=1 ;; esac
request() {
  local asked="$*" method=GET url='' data='' output='' fail='' path code=200 body='' name name_re='"Name":"([^"]*)"'
  while [ "$#" -gt 0 ]; do
    case "$1" in
      -X) method="$2"; shift ;;
      --data-binary) data="$2"; [ "$method" != GET ] || method=POST; shift ;;
      -o) output="$2"; shift ;;
      -H | --unix-socket | --data-urlencode | --write-out) shift ;;
      --fail | --fail-with-body) fail="$1" ;;
      http://*) url="$1" ;;
    esac
    shift
  done
  path="\${url#http://docker}"
  # The files of the container created last: its own folder c<N> where there is one.
  local dir="$FAKE" created
  created="$(cat "$FAKE/creates" 2> /dev/null || echo 0)"
  if [ -d "$FAKE/c$created" ]; then dir="$FAKE/c$created"; fi
  for flag in "$FAKE"/fail-*; do
    if [ -e "$flag" ] && [[ $path == *"\${flag##*/fail-}"* ]]; then code=500 body='{"message":"fake failure"}'; fi
  done
  if [ "$code" = 200 ]; then
    case "$method $path" in
      'POST /volumes/create')
        [[ $data =~ $name_re ]] && name="\${BASH_REMATCH[1]}"
        printf '%s' "$data" > "$FAKE/volume-$name"; code=201 body="{\\"Name\\":\\"$name\\"}" ;;
      'DELETE /volumes/'*)
        name="\${path#/volumes/}"
        name="\${name%%\\?*}"
        if [ -f "$FAKE/volume-$name" ]; then rm "$FAKE/volume-$name"; code=204; else code=404 body='{"message":"no such volume"}'; fi ;;
      'GET /containers/json'*)
        if [ -f "$FAKE/container" ]; then body='[{"Id":"${FAKE_CONTAINER_ID}","Names":["/x"]}]'; else body='[]'; fi ;;
      'POST /containers/create'*)
        if [ -f "$FAKE/container" ]; then code=409 body='{"message":"name in use"}'
        else
          printf '%s\\n' "$asked" > "$FAKE/container"; echo $((created + 1)) > "$FAKE/creates"
          code=201 body='{"Id":"${FAKE_CONTAINER_ID}","Warnings":[]}'
        fi ;;
      'GET /containers/'*/json)
        if [ -f "$FAKE/container" ]; then
          local status running=false
          status="$(cat "$dir/state" 2> /dev/null || echo running)"
          [ "$status" != running ] || running=true
          body="{\\"Id\\":\\"${FAKE_CONTAINER_ID}\\",\\"State\\":{\\"Status\\":\\"$status\\",\\"Running\\":$running}}"
        else code=404 body='{"message":"no such container"}'; fi ;;
      'POST /containers/'*/start | 'POST /containers/'*/stop*)
        if [ -f "$FAKE/container" ]; then code=204; else code=404 body='{"message":"no such container"}'; fi ;;
      'POST /containers/'*/wait)
        body="{\\"Error\\":null,\\"StatusCode\\":$(cat "$dir/exit-status" 2> /dev/null || echo 0)}" ;;
      'GET /containers/'*/logs*)
        for part in "$dir"/logs.*; do
          [ -e "$part" ] || continue
          if [ -n "$output" ]; then cat "$part" >> "$output"; else cat "$part"; fi
          sleep 0.2
        done
        return 0 ;;
      'DELETE /containers/'*)
        if [ -f "$FAKE/container" ]; then rm "$FAKE/container"; code=204; else code=404 body='{"message":"no such container"}'; fi ;;
      *) code=404 body='{"message":"page not found"}' ;;
    esac
  fi
  if [ "$code" -ge 400 ] && [ -n "$fail" ]; then
    if [ "$fail" = --fail-with-body ]; then printf '%s' "$body"; fi
    echo "curl: (22) The requested URL returned error: $code" >&2
    [ -z "$early" ] || exit 22
    return 22
  fi
  if [ -n "$output" ]; then printf '%s' "$body" > "$output"; else printf '%s' "$body"; fi
}
# The requests, separated by --next; curl's status is its last request's.
status=0 args=()
for arg in "$@" --next; do
  if [ "$arg" = --next ]; then
    status=0
    request "\${args[@]}" || status=$?
    args=()
  else
    args+=("$arg")
  fi
done
exit "$status"
`;

export function guestSandbox(
  prefix: string,
  options: {
    scenarios?: readonly string[];
    /** Other files of guest/ to copy beside lib.sh. */
    guestFiles?: readonly string[];
    /** Appended to the copy of lib.sh: assignments that move its folders into the root, overrides. */
    libTail?: (root: string) => string;
  } = {},
): GuestSandbox {
  const root = mkdtempSync(join(tmpdir(), `layerlab-${prefix}-`));
  after(() => rmSync(root, { recursive: true, force: true }));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  mkdirSync(join(root, 'guest'));
  for (const file of ['lib.sh', ...(options.guestFiles ?? [])]) {
    cpSync(join(REPO, 'guest', file), join(root, 'guest', file));
  }
  const script = (name: string) => join(root, 'lab', 'scenarios', name, 'guest.sh');
  for (const name of options.scenarios ?? []) {
    mkdirSync(join(root, 'lab', 'scenarios', name), { recursive: true });
    cpSync(join(REPO, 'lab', 'scenarios', name, 'guest.sh'), script(name));
  }
  if (options.libTail) writeFileSync(join(root, 'guest', 'lib.sh'), `\n${options.libTail(root)}\n`, { flag: 'a' });
  return {
    root,
    bin,
    path: `${bin}:${process.env.PATH}`,
    script,
    fake(name, body) {
      writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${body}`);
      chmodSync(join(bin, name), 0o755);
    },
    fakeEngineApi() {
      this.fake('curl', ENGINE_API_CURL);
    },
  };
}
