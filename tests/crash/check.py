#!/usr/bin/python3 -S
# SPDX-License-Identifier: MIT
"""Check a crash state of a root against its old and new trees.

usage: check.py list ROOT > LIST
       check.py state ROOT OLD NEW DONE    (DONE: 1 when exit 0 is durable)
       check.py whole ROOT OLD NEW [MID]   (after a repair: all old or all
                                            new, or MID; prints which)
       check.py which ROOT OLD NEW [MID]   (any state: prints old, new,
                                            mid, mid-partial (old with some of
                                            MID's paths), mid-plus (MID with
                                            some of NEW's), new-leftover (new,
                                            with paths only the old tree has)
                                            or mixed, temporaries left aside)

MID, where the run is two batches (an Essential package ends the first):
the tree once the first one is done, a state as whole as OLD and NEW.

Exit 3, with one line "file system corrupt: PATH: ERROR", when the file
system itself refuses a path (EUCLEAN, EBADMSG, EIO): the state says
nothing about the tool then, whose system calls cannot make a consistent
disk inconsistent; crash.sh reports it apart, with the kernel's words.

A listing has one line per path below ROOT (lost+found and the admin
directories, debunpack's and dpkg's, and the store var/cache/debunpack
left out): path, type, mode, size, SHA-256 or link target, and
the first path of its hardlink group.  "state" prints one line per
violation of the crash invariants and exits 1 if there is any:
  - each path of the old and new trees is exactly its old or its new
    object, or absent where that version has no such path; paths of one
    hardlink group that are of the same version share an inode;
  - nothing else exists but the tool's temporaries (reserved names);
  - once exit 0 is durable, every path is new and no temporary is left.
"""
import errno
import hashlib
import os
import stat
import sys

# And the store of unpacked files the "cloned" scenario installs from.
ADMINS = ("var/lib/debunpack", "var/lib/dpkg", "var/cache/debunpack")
RESERVED = (".debunpack-new", ".debunpack-old")


def reserved(name):
    return name.endswith(RESERVED) or name.startswith(
        tuple(r + "." for r in RESERVED))


def fail_walk(err):
    raise err


def scan(root):
    """path -> (type, mode, size, digest-or-target, inode)."""
    out = {}
    # An unreadable directory is an error, never an empty one.
    for dirpath, dirs, files in os.walk(root, onerror=fail_walk):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir
        if rel_dir == "":
            dirs[:] = [d for d in dirs if d != "lost+found"]
        for name in dirs + files:
            rel = os.path.join(rel_dir, name)
            if rel in ADMINS or rel.startswith(tuple(a + "/" for a in ADMINS)):
                if name in dirs:
                    dirs.remove(name)
                continue
            full = os.path.join(root, rel)
            st = os.lstat(full)
            # A directory moved aside (reserved name) is listed, not entered.
            if name in dirs and reserved(name):
                dirs.remove(name)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISDIR(st.st_mode):
                out[rel] = ("d", mode, 0, "", st.st_ino)
            elif stat.S_ISLNK(st.st_mode):
                out[rel] = ("l", mode, 0, os.readlink(full), st.st_ino)
            elif stat.S_ISREG(st.st_mode):
                h = hashlib.sha256()
                with open(full, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 16), b""):
                        h.update(chunk)
                out[rel] = ("f", mode, st.st_size, h.hexdigest(), st.st_ino)
            else:
                out[rel] = ("o", mode, 0, "", st.st_ino)
    return out


def listing(tree):
    """path -> (type, mode, size, digest, group) with inodes turned into groups."""
    first = {}
    for path in sorted(tree):
        first.setdefault(tree[path][4], path)
    return {p: v[:4] + (first[v[4]] if v[0] == "f" else "",)
            for p, v in tree.items()}


def read_list(path):
    out = {}
    with open(path) as f:
        for line in f:
            p, t, mode, size, dig, grp = line.rstrip("\n").split("\t")
            out[p] = (t, int(mode), int(size), dig, grp)
    return out


def same(actual, want):
    return want is None and actual is None or (
        want is not None and actual is not None and actual[:4] == want[:4])


def check_state(root, old, new, done):
    tree = scan(root)
    bad = []
    version = {}
    for p in sorted(set(old) | set(new)):
        a = tree.get(p)
        is_old, is_new = same(a, old.get(p)), same(a, new.get(p))
        if not is_old and not is_new:
            bad.append("%s: neither old nor new: %s" % (p, a))
        elif done and not is_new:
            bad.append("%s: old after exit 0 was durable" % p)
        else:
            version[p] = "new" if is_new and not is_old else \
                "old" if is_old and not is_new else "both"
    for p in sorted(set(tree) - set(old) - set(new)):
        if not reserved(os.path.basename(p)):
            bad.append("%s: neither in the old nor in the new tree" % p)
        elif done:
            bad.append("%s: temporary left after exit 0 was durable" % p)
    # Hardlink identity within one version.
    for ver, want in (("old", old), ("new", new)):
        groups = {}
        for p, v in want.items():
            if v[4] and version.get(p) in (ver, "both") and p in tree:
                groups.setdefault(v[4], []).append(p)
        for grp, paths in groups.items():
            inodes = {tree[p][4] for p in paths}
            if len(inodes) > 1:
                bad.append("%s: %s hardlinks %s are not one inode" %
                           (grp, ver, ", ".join(sorted(paths))))
    return bad


def main(argv):
    if len(argv) == 3 and argv[1] == "list":
        for p, v in sorted(listing(scan(argv[2])).items()):
            print("\t".join([p, v[0], str(v[1]), str(v[2]), v[3], v[4]]))
        return 0
    if len(argv) == 6 and argv[1] == "state":
        bad = check_state(argv[2], read_list(argv[3]), read_list(argv[4]),
                          argv[5] == "1")
    elif len(argv) in (5, 6) and argv[1] == "which":
        old, new = read_list(argv[3]), read_list(argv[4])
        mid = read_list(argv[5]) if len(argv) == 6 else None
        got = {p: v for p, v in listing(scan(argv[2])).items()
               if not reserved(os.path.basename(p))}
        gone = set(old) - set(new)
        if got in (old, new):
            print("old" if got == old else "new")
        elif mid is not None and got == mid:
            print("mid")
        elif mid is not None and all(
                got.get(p) in (old.get(p), mid.get(p))
                for p in set(got) | set(old) | set(mid)):
            # The first batch under way: old, with some of its paths.
            print("mid-partial")
        elif mid is not None and all(
                got.get(p) in (mid.get(p), new.get(p))
                for p in set(got) | set(mid) | set(new)):
            # The second under way: the first's tree, with some of its.
            print("mid-plus")
        elif {p: v for p, v in got.items() if p not in gone} == new:
            # New, with files of the old version that the new one drops
            # still there: removed past the commit point, as the
            # journal says (the next run finishes it).
            print("new-leftover")
        else:
            # The paths of neither version, to say what is mixed.
            print("mixed (old: %s)" % ", ".join(
                p for p in sorted(set(got) | set(old) | set(new))
                if got.get(p) != new.get(p) and p in got))
        return 0
    elif len(argv) in (5, 6) and argv[1] == "whole":
        old, new = read_list(argv[3]), read_list(argv[4])
        mid = read_list(argv[5]) if len(argv) == 6 else old
        got = listing(scan(argv[2]))
        bad = [] if got in (old, new, mid) else [
            "repaired root is neither all old nor all new" +
            (" nor the first batch's" if len(argv) == 6 else "")]
        bad += ["%s: temporary left after the repair" % p
                for p in got if reserved(os.path.basename(p))]
        if not bad:
            # Which one, for the caller's checks of the records.
            print("new" if got == new else "old" if got == old else "mid")
            return 0
    else:
        sys.stderr.write(__doc__)
        return 2
    for line in bad:
        print(line)
    return 1 if bad else 0


# What a file system answers for its own damaged metadata or data.
FS_CORRUPT = (errno.EUCLEAN, errno.EBADMSG, errno.EIO)

if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except OSError as e:
        if e.errno not in FS_CORRUPT:
            raise
        print("file system corrupt: %s: %s" % (e.filename, e.strerror))
        sys.exit(3)
