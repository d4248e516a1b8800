#!/usr/bin/env bash
# The step of the mockmcp action (action.yml beside this file): get a mockmcp
# binary, start local mode (`mockmcp serve --designs DIR`) in the background,
# wait until every design is served, and export the endpoints.
#
# Inputs come as INPUT_* variables (see action.yml). Outside GitHub Actions
# (cmd/mockmcp's TestAction runs it) GITHUB_OUTPUT, GITHUB_ENV and GITHUB_PATH
# default to files in the work directory, RUNNER_TEMP/mockmcp-action.
set -euo pipefail

designs=${INPUT_DESIGNS:-mocks}
version=${INPUT_VERSION:-}
port=${INPUT_PORT:-8080}
timeout=${INPUT_TIMEOUT:-120}
fail_on_invalid=${INPUT_FAIL_ON_INVALID:-true}
releases=${INPUT_RELEASES_URL:-https://github.com/mockmcp/mockmcp/releases/download}
# The repository this action belongs to: with `uses: OWNER/mockmcp/.github/actions/mockmcp@REF`
# GitHub checks it out whole at REF, so the source to build is at hand.
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
work=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mockmcp-action
mkdir -p "$work/bin"
: "${GITHUB_OUTPUT:=$work/github_output}" "${GITHUB_ENV:=$work/github_env}" "${GITHUB_PATH:=$work/github_path}"

fail() { echo "::error title=mockmcp::$*"; exit 1; }

[ -d "$designs" ] || fail "the designs folder '$designs' does not exist"
case $port in '' | *[!0-9]*) fail "port '$port' is not a number" ;; esac

bin=$work/bin/mockmcp
if [ -n "$version" ]; then
  case $(uname -s) in Linux) os=linux ;; Darwin) os=darwin ;; *) fail "no release binary for $(uname -s)" ;; esac
  case $(uname -m) in x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) fail "no release binary for $(uname -m)" ;; esac
  file=mockmcp_${version}_${os}_${arch}
  echo "Downloading $releases/$version/$file"
  curl -fsSL --retry 3 -o "$work/$file" "$releases/$version/$file" || fail "could not download $file of release $version"
  curl -fsSL --retry 3 -o "$work/SHA256SUMS" "$releases/$version/SHA256SUMS" || fail "could not download SHA256SUMS of release $version"
  sum=$(grep -E "[ *]$file\$" "$work/SHA256SUMS" | cut -d ' ' -f 1) || fail "SHA256SUMS of release $version does not list $file"
  if command -v sha256sum > /dev/null; then got=$(sha256sum "$work/$file"); else got=$(shasum -a 256 "$work/$file"); fi
  [ "${got%% *}" = "$sum" ] || fail "$file does not match its SHA-256 in SHA256SUMS"
  mv "$work/$file" "$bin"
  chmod +x "$bin"
else
  command -v go > /dev/null || fail "version is empty, so mockmcp is built from source, and Go is not installed (add actions/setup-go)"
  echo "Building mockmcp from $source_dir"
  (cd "$source_dir" && go build -o "$bin" ./cmd/mockmcp)
fi
"$bin" version

out=$work/mockmcp.out
log=$work/mockmcp.log
if [ -n "${INPUT_DATABASE_URL:-}" ]; then
  export DATABASE_URL=$INPUT_DATABASE_URL
fi
# No metrics listener: a CI job does not scrape, and a second instance on the
# runner would find 127.0.0.1:9091 taken.
LISTEN_ADDR=127.0.0.1:$port METRICS_ADDR= nohup "$bin" serve --designs "$designs" > "$out" 2> "$log" &
pid=$!

stop() {
  kill "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  echo "--- mockmcp's standard output"; cat "$out"
  echo "--- mockmcp's log"; tail -n 50 "$log"
  fail "$*"
}

# The service answers /api/health only once every design file has been
# applied: then the designs are served.
base=http://127.0.0.1:$port
deadline=$((SECONDS + timeout))
until curl -fs -o /dev/null "$base/api/health"; do
  kill -0 "$pid" 2> /dev/null || stop "mockmcp stopped before it was ready"
  [ "$SECONDS" -lt "$deadline" ] || stop "mockmcp was not ready within ${timeout}s"
  sleep 0.5
done

# Standard output holds one line per design, NAME, two spaces, its endpoint
# (a design's: /api/platform/ID/mcp; other lines may name other URLs),
# and one line per fault of a file that did not apply, PATH: FIELD: MESSAGE,
# its path the folder's joined with the file's name.
prefix=${designs#./}
prefix=${prefix%/}/
invalid=0
names=()
urls=()
while IFS= read -r line; do
  if [[ $line =~ ^[[:space:]]*(.*[^[:space:]])[[:space:]]{2,}(https?://[^[:space:]]+/api/platform/[^/[:space:]]+/mcp)$ ]]; then
    # A design applied again (its file changed) is listed again: the last
    # line counts. (No associative array: macOS ships bash 3.)
    i=0
    while [ "$i" -lt "${#names[@]}" ] && [ "${names[$i]}" != "${BASH_REMATCH[1]}" ]; do i=$((i + 1)); done
    names[$i]=${BASH_REMATCH[1]}
    urls[$i]=${BASH_REMATCH[2]}
  elif [[ $line == "$prefix"* ]]; then
    echo "::error title=mockmcp design::$line"
    invalid=$((invalid + 1))
  fi
done < "$out"
if [ "$invalid" -gt 0 ] && [ "$fail_on_invalid" = true ]; then
  stop "$invalid fault(s) in the design files of $designs"
fi
[ "${#names[@]}" -gt 0 ] || echo "::warning title=mockmcp::no design served from $designs"

json={
sep=
for i in ${names[@]+"${!names[@]}"}; do
  name=${names[$i]}
  url=${urls[$i]}
  var=MOCKMCP_ENDPOINT_$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]' | tr -c 'A-Z0-9' '_')
  echo "$name  $url  (\$$var)"
  echo "$var=$url" >> "$GITHUB_ENV"
  quoted=${name//\\/\\\\}
  quoted=${quoted//\"/\\\"}
  json+="$sep\"$quoted\":\"$url\""
  sep=,
done
json+=}

{
  echo "url=$base"
  echo "endpoints=$json"
  echo "pid=$pid"
  echo "log=$log"
} >> "$GITHUB_OUTPUT"
# MOCKMCP_URL is where the REST commands (mockmcp export, apply, keys ...)
# reach the service; DATABASE_URL lets `mockmcp keys create --org local` of a
# later step reach its database.
echo "MOCKMCP_URL=$base" >> "$GITHUB_ENV"
if [ -n "${INPUT_DATABASE_URL:-}" ]; then
  echo "DATABASE_URL=$INPUT_DATABASE_URL" >> "$GITHUB_ENV"
fi
echo "$work/bin" >> "$GITHUB_PATH"
echo "mockmcp serves $designs at $base (process $pid, log $log)"
