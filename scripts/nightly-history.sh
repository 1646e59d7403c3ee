# shellcheck shell=bash
# shellcheck disable=SC2154 # history, results and dry_run are nightly.sh's
# The nightly history's durable copy: sourced by scripts/nightly.sh, not run.
# It expects from nightly.sh: $history (a file or s3://bucket/key), $results,
# $dry_run, and the functions trace and step.
#
# A missing history is a first night; any other failure to read it stops the
# night before anything is created or uploaded (a denied or throttled read
# taken for "no history" would overwrite every earlier night with tonight's).
#
# In S3 a history is written new-then-switch, so a night killed at any point
# leaves the previous history whole:
#   <key>.d/<time>-<sha>.sqlite   one generation per night, never overwritten
#   <key>.current                 a small pointer: which generation, its size
#                                 and SHA-256, and the generation before it
# 1. tonight's file is PUT under a new generation key (with Content-MD5, so S3
#    refuses a body damaged on the way), then HEAD checks its size and checksum;
# 2. only then is the pointer PUT. S3 replaces an object atomically: a reader
#    sees the old pointer or the new one, never a mix, and either names a
#    complete, verified generation. A night that dies before 2 leaves the old
#    pointer (and an unreferenced generation, which the next switch does not
#    need); readers check the generation's SHA-256 against the pointer.
# 3. the generation two switches back is deleted (best effort): the current
#    and the previous one stay.
# Two nights writing at once would lose one night's record, not the history:
# the workflow runs one night at a time (its concurrency group).
# A history written before pointers (a plain object at <key>) is read when
# there is no pointer yet, and left in place.
#
# LAYERLAB_S3_ENDPOINT: an S3-compatible endpoint URL (passed to the aws CLI as
# --endpoint-url; awscli v2 before 2.13 ignores AWS_ENDPOINT_URL).

HISTORY_POINTER_FORMAT='layerlab-history-pointer 1'
# What tonight read: the generation the pointer named, and the one before it.
history_read_generation='' history_read_previous=''

s3_endpoint=()
[ -z "${LAYERLAB_S3_ENDPOINT:-}" ] || s3_endpoint=(--endpoint-url "$LAYERLAB_S3_ENDPOINT")

# The AWS error code of a failed aws call, out of its stderr ("NoSuchKey", "AccessDenied", ...).
aws_error_code() {
  sed -n 's/.*An error occurred (\([A-Za-z0-9.]*\)).*/\1/p' "$1" | head -n 1
}

history_unreadable() {
  local what="$1" err="$2"
  {
    echo "nightly: cannot read the history ($what):"
    sed 's/^/  /' "$err"
    echo "nightly: this is not a missing history (that would be a first night): stopping before anything is created or uploaded, so the history stays as it is."
    echo "nightly: check the credentials, the bucket policy and the network, then run the night again."
    echo "nightly: (a missing key reads as AccessDenied, not NoSuchKey, to a role without s3:ListBucket on the bucket)"
  } >&2
  exit 3
}

# get-object of s3://$1/$2 into $3: 0 read, 1 no such key, exits 3 on any other failure.
s3_get() {
  local bucket="$1" key="$2" dest="$3" err
  trace aws "${s3_endpoint[@]}" s3api get-object --bucket "$bucket" --key "$key" "$dest"
  "$dry_run" && return 0
  err="$(mktemp)"
  if aws "${s3_endpoint[@]}" s3api get-object --bucket "$bucket" --key "$key" "$dest" > /dev/null 2> "$err"; then
    rm -f "$err"
    return 0
  fi
  case "$(aws_error_code "$err")" in
    # 404 without a code: a HEAD-like answer without a body.
    NoSuchKey | 404)
      rm -f "$err"
      return 1
      ;;
  esac
  history_unreadable "s3://$bucket/$key" "$err"
}

sha256_of() {
  sha256sum "$1" | cut -d ' ' -f 1
}

first_night() {
  echo "nightly: no history at $history yet (first night): this run becomes the baseline" >&2
}

fetch_history_s3() {
  local local_copy="$1" url="${history#s3://}" bucket key pointer
  bucket="${url%%/*}" key="${url#*/}"
  pointer="$results/history.pointer"
  if s3_get "$bucket" "$key.current" "$pointer"; then
    "$dry_run" && {
      step aws "${s3_endpoint[@]}" s3api get-object --bucket "$bucket" --key "$key.d/<generation>.sqlite" "$local_copy"
      return 0
    }
    local format generation size sha previous
    {
      read -r format
      read -r _ generation
      read -r _ size
      read -r _ sha
      read -r _ previous
    } < "$pointer" || true
    if [ "$format" != "$HISTORY_POINTER_FORMAT" ] || [ -z "$generation" ] || [ -z "$sha" ]; then
      printf 'the pointer s3://%s/%s.current is not a layerlab history pointer\n' "$bucket" "$key" > "$pointer.err"
      history_unreadable "s3://$bucket/$key.current" "$pointer.err"
    fi
    # The pointer names a generation that was verified when it was written: missing now is damage.
    s3_get "$bucket" "$generation" "$local_copy" || {
      echo "the pointer names s3://$bucket/$generation, which does not exist" > "$pointer.err"
      history_unreadable "s3://$bucket/$generation" "$pointer.err"
    }
    if [ "$(wc -c < "$local_copy")" != "$size" ] || [ "$(sha256_of "$local_copy")" != "$sha" ]; then
      echo "s3://$bucket/$generation is not the file its pointer describes (size $size, sha256 $sha)" > "$pointer.err"
      history_unreadable "s3://$bucket/$generation" "$pointer.err"
    fi
    history_read_generation="$generation" history_read_previous="${previous#-}"
    echo "nightly: history read from s3://$bucket/$generation" >&2
    return 0
  fi
  # No pointer: a history written before pointers, or none at all.
  if s3_get "$bucket" "$key" "$local_copy"; then
    echo "nightly: history read from s3://$bucket/$key (written before generations; kept as it is)" >&2
  else
    first_night
  fi
}

fetch_history_file() {
  local local_copy="$1" err
  if [ ! -e "$history" ]; then
    first_night
    return 0
  fi
  step cp "$history" "$local_copy" 2> /dev/null && return 0
  err="$(mktemp)"
  echo "cp $history failed (unreadable?)" > "$err"
  history_unreadable "$history" "$err"
}

# Brings the durable history to $results/history.sqlite; exits 3 when it exists but cannot be read.
fetch_history() {
  [ -n "$history" ] || return 0
  local local_copy="$results/history.sqlite"
  step mkdir -p "$results"
  case "$history" in
    s3://*) fetch_history_s3 "$local_copy" ;;
    *) fetch_history_file "$local_copy" ;;
  esac
}

store_history_s3() {
  local local_copy="$1" url="${history#s3://}" bucket key
  bucket="${url%%/*}" key="${url#*/}"
  if "$dry_run"; then
    step aws "${s3_endpoint[@]}" s3api put-object --bucket "$bucket" --key "$key.d/<time>-<sha>.sqlite" --body "$local_copy"
    step aws "${s3_endpoint[@]}" s3api head-object --bucket "$bucket" --key "$key.d/<time>-<sha>.sqlite"
    step aws "${s3_endpoint[@]}" s3api put-object --bucket "$bucket" --key "$key.current" --body "$results/history.pointer"
    return 0
  fi
  local size sha md5 generation stored pointer="$results/history.pointer.new"
  size="$(wc -c < "$local_copy")"
  sha="$(sha256_of "$local_copy")"
  md5="$(openssl dgst -md5 -binary "$local_copy" | base64)"
  generation="$key.d/$(date -u +%Y%m%dT%H%M%SZ)-${sha:0:16}.sqlite"
  step aws "${s3_endpoint[@]}" s3api put-object --bucket "$bucket" --key "$generation" --body "$local_copy" \
    --content-md5 "$md5" --metadata "sha256=$sha" > /dev/null || return 1
  stored="$(aws "${s3_endpoint[@]}" s3api head-object --bucket "$bucket" --key "$generation" \
    --query '[ContentLength, Metadata.sha256]' --output text)" || return 1
  if [ "$stored" != "$size	$sha" ]; then
    echo "nightly: s3://$bucket/$generation reads back as '$stored', not '$size $sha': the pointer is not switched" >&2
    return 1
  fi
  printf '%s\ngeneration %s\nsize %s\nsha256 %s\nprevious %s\n' \
    "$HISTORY_POINTER_FORMAT" "$generation" "$size" "$sha" "${history_read_generation:--}" > "$pointer"
  step aws "${s3_endpoint[@]}" s3api put-object --bucket "$bucket" --key "$key.current" --body "$pointer" \
    --content-type text/plain > /dev/null || return 1
  echo "nightly: history written to s3://$bucket/$generation; s3://$bucket/$key.current points to it" >&2
  if [ -n "$history_read_previous" ] && [ "$history_read_previous" != "$generation" ]; then
    step aws "${s3_endpoint[@]}" s3api delete-object --bucket "$bucket" --key "$history_read_previous" > /dev/null ||
      echo "nightly: could not delete the old generation s3://$bucket/$history_read_previous (harmless; delete it by hand)" >&2
  fi
}

# Writes $results/history.sqlite back to the durable history, new-then-switch.
store_history() {
  [ -n "$history" ] || return 0
  local local_copy="$results/history.sqlite"
  "$dry_run" || [ -f "$local_copy" ] || return 0
  case "$history" in
    s3://*) store_history_s3 "$local_copy" ;;
    *) step cp "$local_copy" "$history.new" && step mv "$history.new" "$history" ;;
  esac
}
