#!/usr/bin/env python3
"""Write pakrat's built-in type tables (crates/pakrat-classic/src/script/
natives/PREFIX-PKG-types.tsv) from ucfacts.py's output.

gen.py FACTS.json PREFIX NATIVES_DIR HEADER PKG=DIR...

Every class of each package named is written. HEADER: the table's header, {PKG} and {DIR} replaced. The enums
of every directory in FACTS.json are known (Core's and Engine's too)."""
import json, re, sys

facts = json.load(open(sys.argv[1]))
prefix = sys.argv[2]
natdir = sys.argv[3]
srcfmt = sys.argv[4]  # the header file
pkgs = []
src = {}
for a in sys.argv[5:]:
    # PKG=DIR, or PKG=DIR=PATH when the source's path is not DIR.
    p, d, *path = a.split("=")
    pkgs.append((p, d))
    src[p] = path[0] if path else d

# every enum known (all dirs parsed), lower -> declared name
enum_names = {}
for d, classes in facts.items():
    for c in classes.values():
        for e in c["enums"]:
            enum_names.setdefault(e.lower(), e)

# class -> (pkg, facts) for the packages written
owner = {}
for p, d in pkgs:
    for n, c in facts[d].items():
        owner.setdefault(n.lower(), (p, c))

# every class of the packages written
want = set(owner)


def enum_of(ty):
    return enum_names.get((ty or "").lower())


def existing(p):
    try:
        text = open(f"{natdir}/{prefix}-{p}.tsv").read()
    except FileNotFoundError:
        return set()
    out = set()
    for l in text.splitlines():
        c = l.split("\t")
        if len(c) == 7 and c[0].isdigit():
            out.add((c[1].lower(), c[2].lower()))
    return out


for p, d in pkgs:
    have = existing(p)
    rows, used_enums = [], set()
    classes = sorted((n for n in want if owner[n][0] == p), key=lambda n: owner[n][1]["name"].lower())
    paths = []
    for n in classes:
        c = owner[n][1]
        cn = c["name"]
        paths.append(c["path"])
        rows.append(f"class\t{cn}\t{c['super'] or '-'}")
        seen = set()
        for v, ty in c["vars"]:
            if v.lower() in seen:
                continue
            seen.add(v.lower())
            e = enum_of(ty)
            if e:
                used_enums.add(e)
            rows.append(f"var\t{cn}\t{v}\t{e or '-'}")
        for sname, members in sorted(c["structs"].items()):
            for v, ty in members:
                e = enum_of(ty)
                if e:
                    used_enums.add(e)
                    rows.append(f"var\t{sname}\t{v}\t{e}")
        fseen = set()
        for f in c["funcs"]:
            if f["kw"] not in ("function", "event", "delegate") or not f["name"]:
                continue
            if f["name"].lower() in fseen:
                continue
            fseen.add(f["name"].lower())
            if (cn.lower(), f["name"].lower()) in have:
                continue
            flags = [m for m in ("final", "static") if m in f["mods"]]
            ps = []
            for ty, co in f["params"]:
                e = enum_of(ty)
                if e:
                    used_enums.add(e)
                ps.append("c" if co else (e or "-"))
            r = enum_of(f["ret"])
            if r:
                used_enums.add(r)
            idx = str(f["native"]) if f["native"] else "-"
            rows.append("\t".join([idx, cn, f["name"], "call", ",".join(flags) or "-",
                                   ",".join(ps) or ".", r or "-"]))
    # the enums the package itself declares that its rows use, or its classes declare
    enums = {}
    for n, c in facts[d].items():
        for e, vals in c["enums"].items():
            if e in used_enums or n.lower() in want:
                enums.setdefault(e, vals)
    for e in sorted(enums, key=str.lower):
        rows.append(f"enum\t{e}\t{','.join(enums[e])}")
    sys.stdout.write(f"{p}\t{len(classes)} classes\t{len(rows)} rows\n")
    with open(f"{natdir}/{prefix}-{p}-types.tsv", "w") as out:
        out.write(open(srcfmt).read().replace("{PKG}", p).replace("{DIR}", src[p]) + "\n")
        out.write("\n".join(rows) + "\n")
