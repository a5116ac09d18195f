#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The next version of a package set, for upgrade benchmarks.

usage: bumpdebs.py SUFFIX OUTDIR DEB...

Writes each DEB to OUTDIR with SUFFIX appended to its version, as a
binNMU would: control.tar is rewritten, data.tar is the same bytes, so an
upgrade replaces every file by the same contents and costs what a real
upgrade of the set costs in unpacking.  Relations that pin a package of
the set to its old version ("=" and "<=", as between the binaries of one
source) are moved to the new one, so that the new set installs as a whole.
"""

import io
import os
import re
import sys
import tarfile

AR_MAGIC = b"!<arch>\n"
RELATIONS = ("Depends", "Pre-Depends", "Recommends", "Suggests", "Enhances",
             "Breaks", "Conflicts", "Replaces", "Provides")


def ar_members(path):
    """(name, bytes) of every member of the ar archive PATH, in order."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(AR_MAGIC):
        raise ValueError(f"{path}: not an ar archive")
    pos, out = len(AR_MAGIC), []
    while pos + 60 <= len(data):
        hdr = data[pos:pos + 60]
        name = hdr[0:16].decode().strip().rstrip("/")
        size = int(hdr[48:58].decode().strip())
        out.append((name, data[pos + 60:pos + 60 + size]))
        pos += 60 + size + (size & 1)
    return out


def ar_write(path, members):
    with open(path, "wb") as f:
        f.write(AR_MAGIC)
        for name, body in members:
            f.write(b"%-16s%-12d%-6d%-6d%-8o%-10d`\n" %
                    (name.encode(), 0, 0, 0, 0o100644, len(body)))
            f.write(body)
            if len(body) & 1:
                f.write(b"\n")


def control_fields(text):
    """The control file's fields as an ordered list of [name, value]."""
    fields = []
    for line in text.splitlines():
        if line[:1] in (" ", "\t") and fields:
            fields[-1][1] += "\n" + line
        elif ":" in line:
            name, value = line.split(":", 1)
            fields.append([name, value.strip()])
    return fields


def bump_relations(value, old, suffix):
    """VALUE with "P (= V)" and "P (<= V)" moved to V+SUFFIX where V is
    the version of P in the set (OLD: package -> version)."""
    def repl(m):
        pkg, op, ver = m.group(1), m.group(2), m.group(3)
        if op in ("=", "<=") and old.get(pkg.split(":")[0]) == ver:
            ver += suffix
        return f"{pkg} ({op} {ver})"
    return re.sub(r"([a-z0-9][a-z0-9+.-]*(?::[a-z0-9-]+)?)\s*\(\s*(<<|<=|=|>=|>>)\s*([^ )]+)\s*\)",
                  repl, value)


def read_control(members):
    for name, body in members:
        if name.startswith("control.tar"):
            with tarfile.open(fileobj=io.BytesIO(body)) as t:
                for ti in t.getmembers():
                    if ti.name in ("./control", "control"):
                        return t.extractfile(ti).read().decode()
    raise ValueError("no control file")


def rewrite(path, outdir, old, suffix):
    members = ar_members(path)
    out = []
    for name, body in members:
        if name.startswith("control.tar"):
            body = rewrite_control_tar(body, old, suffix)
            name = "control.tar.xz"
        out.append((name, body))
    fields = control_fields(read_control(out))
    get = dict((k, v) for k, v in fields)
    arch = get.get("Architecture", "all")
    ver = get["Version"].split(":")[-1]
    ar_write(os.path.join(outdir, f"{get['Package']}_{ver}_{arch}.deb"), out)


def rewrite_control_tar(body, old, suffix):
    src = tarfile.open(fileobj=io.BytesIO(body))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz", format=tarfile.GNU_FORMAT) as dst:
        for ti in src.getmembers():
            data = src.extractfile(ti).read() if ti.isfile() else None
            if ti.name in ("./control", "control"):
                fields = control_fields(data.decode())
                for f in fields:
                    if f[0] == "Version":
                        f[1] += suffix
                    elif f[0] in RELATIONS:
                        f[1] = bump_relations(f[1], old, suffix)
                data = "".join(f"{k}: {v}\n" if not v.startswith("\n")
                               else f"{k}:{v}\n" for k, v in fields).encode()
                ti.size = len(data)
            dst.addfile(ti, io.BytesIO(data) if data is not None else None)
    src.close()
    return buf.getvalue()


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    suffix, outdir, debs = argv[1], argv[2], argv[3:]
    old = {}
    for d in debs:
        get = dict(control_fields(read_control(ar_members(d))))
        old[get["Package"]] = get["Version"]
    os.makedirs(outdir, exist_ok=True)
    for d in debs:
        try:
            rewrite(d, outdir, old, suffix)
        except (OSError, ValueError, KeyError, tarfile.TarError) as e:
            print(f"bumpdebs: {d}: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
