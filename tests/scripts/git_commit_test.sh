#!/usr/bin/env bash
# lib/sortbench/report/git_commit.cmake, the build-time step that names the commit results carry:
# in a scratch git repository it must name each new commit without a reconfigure, leave its
# output untouched while the commit stays (nothing recompiles), honour -DSORTBENCH_GIT_COMMIT's
# COMMIT, and say "unknown" outside a checkout.
#
#   bash tests/scripts/git_commit_test.sh [REPO_ROOT]
set -uo pipefail

root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
script=$root/lib/sortbench/report/git_commit.cmake
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
check() {  # check WHAT EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAILED: $1: expected '$2', got '$3'"; failures=$((failures + 1)); fi
}
named() { sed -n 's/.*return "\(.*\)";.*/\1/p' "$1"; }
step() { cmake -DSOURCE_DIR="$1" -DCOMMIT="${2:-}" -DOUTPUT="$tmp/git_commit.cpp" -P "$script"; }

repo=$tmp/repo
mkdir -p "$repo"
git -C "$repo" init -q
# A scratch folder inside some other checkout must not find that one.
export GIT_CEILING_DIRECTORIES=$tmp
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.com
echo one >"$repo/file" && git -C "$repo" add file && git -C "$repo" commit -qm one
step "$repo"
check "the checked-out commit" "$(git -C "$repo" rev-parse --short=12 HEAD)" "$(named "$tmp/git_commit.cpp")"

touch -d '2000-01-01' "$tmp/git_commit.cpp"
step "$repo"
check "an unchanged commit leaves the file alone" "2000-01-01" "$(date -r "$tmp/git_commit.cpp" +%F)"

echo two >"$repo/file" && git -C "$repo" commit -qam two
step "$repo"
check "the next commit, with no reconfigure" "$(git -C "$repo" rev-parse --short=12 HEAD)" "$(named "$tmp/git_commit.cpp")"

step "$repo" 0123456789ab
check "-DSORTBENCH_GIT_COMMIT wins" "0123456789ab" "$(named "$tmp/git_commit.cpp")"

mkdir -p "$tmp/copy"
step "$tmp/copy"
check "a tree without .git" "unknown" "$(named "$tmp/git_commit.cpp")"

[ "$failures" = 0 ] && echo "git_commit_test: all passed" || echo "git_commit_test: $failures failed"
[ "$failures" = 0 ]
