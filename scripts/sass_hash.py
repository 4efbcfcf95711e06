#!/usr/bin/env python3
"""Every GPU function's SASS in a build, hashed: the check that a move changed no kernel.

docs/architecture.md ("Moving code"): a commit that only moves code must leave every kernel's
machine code as it was. Hash the build before the move, rebuild after it, hash again, compare:

    python3 scripts/sass_hash.py build > /tmp/before.txt      # at the commit before the move
    ... move, rebuild ...
    python3 scripts/sass_hash.py build --compare /tmp/before.txt

A line a function: its mangled name (an anonymous namespace's name, which names its file, as
ANON) and the SHA-256 of its SASS (cuobjdump -sass, the
function's instructions as printed, which name no file), over the CUDA objects under kernels/
and lib/ of the build folder. A function that several objects hold (an inline template)
counts once a distinct body. --compare prints the functions whose hashes differ, that appeared
or that went, and exits 1 where any did; 0 where every one is the same.

Needs cuobjdump and nvdisasm (the CUDA Toolkit's, or the nvidia-cuda-cuobjdump and
nvidia-cuda-nvdisasm wheels) on PATH; exit 2 with one line where they are not.
"""
import argparse
import hashlib
import pathlib
import re
import shutil
import subprocess
import sys

FUNCTION = re.compile(r"^\s*Function : (\S+)\s*$")
ANONYMOUS = re.compile(r"(\d+)_GLOBAL__N_")
# Relocatable device code renames a file's internal functions __nv_static_<file, hash, a counter>__.
NV_STATIC = re.compile(r"__nv_static_\d+__[0-9a-f]+_\d+_\w+?_[0-9a-f]{8}_\d+__")


def without_file_names(text):
    """A mangled name with each anonymous namespace's name (which carries its file's name and a
    hash of it) as ANON, and rdc's __nv_static_ prefix (its file and a counter of the file's
    declarations) as __nv_static__, so that a function moved to another file keeps its name."""
    out, at = [], 0
    for m in ANONYMOUS.finditer(text):
        if m.start() < at:
            continue
        out.append(text[at:m.start()])
        out.append("4ANON")
        at = m.start(1) + len(m.group(1)) + int(m.group(1))
    out.append(text[at:])
    return NV_STATIC.sub("__nv_static__", "".join(out))


def function_hashes(obj):
    """{function: hash} of one object's SASS."""
    out = subprocess.run(["cuobjdump", "-sass", str(obj)], capture_output=True, text=True)
    if out.returncode != 0:
        # An object without device code (a host-only .cu) has no SASS to hash.
        if "does not contain device code" in out.stderr or not out.stderr.strip():
            return {}
        raise RuntimeError(f"cuobjdump -sass {obj}: {out.stderr.strip().splitlines()[-1]}")
    hashes, name, body = {}, None, []

    def close():
        if name is not None:
            hashes[name] = hashlib.sha256("\n".join(body).encode()).hexdigest()[:16]

    for line in out.stdout.splitlines():
        m = FUNCTION.match(line)
        if m:
            close()
            name, body = without_file_names(m.group(1)), []
        elif name is not None:
            text = line.rstrip()
            # The end of one function's listing: a new header block (arch, file) starts.
            if text.startswith("\t\tFatbin") or text.startswith("Fatbin"):
                close()
                name = None
                continue
            body.append(without_file_names(text))
    close()
    return hashes


def build_hashes(build):
    objects = sorted(p for part in ("kernels", "lib") for p in (build / part).rglob("*.cu.o"))
    if not objects:
        raise SystemExit(f"sass_hash: no CUDA objects under {build}/kernels or {build}/lib; build first")
    seen = {}
    for obj in objects:
        for name, digest in function_hashes(obj).items():
            seen.setdefault(name, set()).add(digest)
    return {name: ",".join(sorted(d)) for name, d in seen.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", nargs="?", default="build", help="the build folder (default: build)")
    ap.add_argument("--compare", metavar="FILE", help="an earlier output of this script to compare with")
    args = ap.parse_args()
    for tool in ("cuobjdump", "nvdisasm"):
        if not shutil.which(tool):
            print(f"sass_hash: {tool} is not on PATH; add the CUDA Toolkit's bin folder (or pip install "
                  f"nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)", file=sys.stderr)
            return 2
    now = build_hashes(pathlib.Path(args.build))
    if not args.compare:
        for name in sorted(now):
            print(name, now[name])
        return 0
    before = {}
    for line in pathlib.Path(args.compare).read_text().splitlines():
        if line.strip():
            name, digest = line.split()
            before[name] = digest
    changed = sorted(n for n in now.keys() & before.keys() if now[n] != before[n])
    added = sorted(now.keys() - before.keys())
    gone = sorted(before.keys() - now.keys())
    for label, names in (("changed", changed), ("new", added), ("gone", gone)):
        for n in names:
            print(f"{label}: {n}")
    print(f"sass_hash: {len(now)} functions; {len(changed)} changed, {len(added)} new, {len(gone)} gone")
    return 1 if changed or added or gone else 0


if __name__ == "__main__":
    sys.exit(main())
