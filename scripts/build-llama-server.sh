#!/usr/bin/env bash
# Build llama.cpp's own OpenAI-compatible server, `llama-server`, once, for the HTTP tests (test/http/, issue 16).
#
# The sources come from the Python package index only: the sdist of llama-cpp-python (pinned below, with its hash)
# carries llama.cpp under vendor/llama.cpp, and pip is the only client that fetches it. The binary is cached outside
# the repository, in ~/.cache/gemma-agent/llama-server/llama-cpp-python-<version>/bin/llama-server
# (GEMMA_AGENT_LLAMA_SERVER_CACHE overrides the folder): a second run only checks that the cached binary starts, and
# prints its path. `.ci/run` calls this before `npm test`.
#
# Why llama-server and not llama-cpp-python[server]: the "llama-server" dialect (/props, cache_prompt, grammar,
# parallel slots, timings with cached tokens) is what this project talks to, and llama-server is that server; the
# Python package's server is another program (FastAPI) that needs a dozen more PyPI packages at run time.
#
# Options: --env prints `export GEMMA_AGENT_LLAMA_SERVER=<path>` instead of the bare path. GEMMA_AGENT_BUILD_JOBS sets
# the compile jobs (default: the cores available). Exit 0 with the path on stdout; exit 2 with one line on stderr.
set -euo pipefail

PACKAGE=llama-cpp-python
VERSION=0.3.36
SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e

cache="${GEMMA_AGENT_LLAMA_SERVER_CACHE:-${HOME}/.cache/gemma-agent/llama-server/${PACKAGE}-${VERSION}}"
bin="${cache}/bin/llama-server"

say() { printf 'build-llama-server: %s\n' "$*" >&2; }
fail() {
  say "$*"
  exit 2
}
print_path() {
  if [ "${1:-}" = "--env" ]; then printf 'export GEMMA_AGENT_LLAMA_SERVER=%q\n' "$bin"; else printf '%s\n' "$bin"; fi
}

if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
  print_path "${1:-}"
  exit 0
fi

for tool in python3 cmake c++; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is needed to build llama-server (install it, or set GEMMA_AGENT_LLAMA_SERVER to a llama-server binary)"
done
python3 -m pip --version >/dev/null 2>&1 || fail "python3 -m pip is needed to fetch the llama.cpp sources"

work="$(mktemp -d "${TMPDIR:-/tmp}/gemma-agent-llama-server.XXXXXX")"
trap 'rm -rf "$work"' EXIT
started=$SECONDS

say "fetching ${PACKAGE}==${VERSION} (sdist, llama.cpp sources) with pip"
printf '%s==%s --hash=sha256:%s\n' "$PACKAGE" "$VERSION" "$SHA256" >"$work/requirements.txt"
python3 -m pip download --quiet --no-deps --no-binary :all: --require-hashes -r "$work/requirements.txt" -d "$work/sdist" >&2 \
  || fail "pip could not download ${PACKAGE}==${VERSION} (see above)"
tar -xzf "$work/sdist/llama_cpp_python-${VERSION}.tar.gz" -C "$work"
src="$work/llama_cpp_python-${VERSION}/vendor/llama.cpp"
[ -f "$src/tools/server/CMakeLists.txt" ] || fail "the sdist holds no llama.cpp server sources ($src)"
fetched=$((SECONDS - started))

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
jobs="${GEMMA_AGENT_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
say "building llama-server with ${jobs} jobs (a few minutes on 2 cores)"
# No network at build time: no prebuilt web UI from a hub, no HTTPS client; only the server target and what it needs.
cmake -S "$src" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON >"$work/configure.log" 2>&1 \
  || { tail -n 30 "$work/configure.log" >&2; fail "cmake could not configure llama.cpp (log above)"; }
cmake --build "$work/build" --target llama-server -j "$jobs" >"$work/build.log" 2>&1 \
  || { tail -n 30 "$work/build.log" >&2; fail "the llama-server build failed (log above)"; }

built="$(find "$work/build" -type f -name llama-server -perm -u+x | head -n 1)"
[ -n "$built" ] || fail "the build finished but produced no llama-server binary"
mkdir -p "$(dirname "$cache")"
staging="${cache}.tmp.$$"
rm -rf "$staging"
mkdir -p "$staging/bin"
cp "$built" "$staging/bin/llama-server"
cp "$src/LICENSE" "$staging/LICENSE-llama.cpp"
printf '%s %s (llama.cpp %s), built in %ss (fetch %ss)\n' "$PACKAGE" "$VERSION" \
  "$(cat "$work/llama_cpp_python-${VERSION}/.git/modules/vendor/llama.cpp/HEAD" 2>/dev/null || echo unknown)" \
  "$((SECONDS - started))" "$fetched" >"$staging/BUILD-INFO"
rm -rf "$cache"
mv "$staging" "$cache"
"$bin" --version >/dev/null 2>&1 || fail "the built llama-server does not start ($bin)"
say "built ${bin} in $((SECONDS - started)) s (fetch ${fetched} s)"
print_path "${1:-}"
