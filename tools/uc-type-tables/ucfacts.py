#!/usr/bin/env python3
"""Read type facts from UnrealScript sources in a git repository: each
class's super, its properties' types, its functions' modifiers, parameter
and return types (functions of states are left out), its enums and its
structs' members. Declarations only: bodies, defaultproperties and
cpptext are skipped, nothing of them is kept.

ucfacts.py REPO COMMIT DIR [DIR...] > FACTS.json"""
import json
import re
import subprocess
import sys

MODS = {"const", "config", "globalconfig", "localized", "transient", "native", "editconst",
        "noexport", "private", "protected", "public", "input", "export", "editinline",
        "edfindable", "deprecated", "editinlineuse", "editinlinenotify", "cache", "automated",
        "travel", "noimport", "needctorlink", "editconstarray", "duplicatetransient",
        "skipparm", "instanced", "databinding", "notforconsole", "init", "repnotify",
        "interp", "nontransactional", "editoronly", "serializetext", "edithide", "crosslevel",
        "editinlinenew", "noclear", "repretry", "archetype", "bitwise", "static", "out", "optional",
        "coerce", "skip", "reliable", "unreliable", "simulated", "final", "latent", "iterator",
        "singular", "exec", "server", "client", "intrinsic"}
# The modifiers a function may have.
FUNC_MODS = {"final", "static", "simulated", "native", "latent", "iterator", "singular",
             "exec", "private", "protected", "public", "reliable", "unreliable", "server",
             "client", "intrinsic"}
FUNC_KW = {"function", "event", "delegate", "operator", "preoperator", "postoperator"}


def strip(text):
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(c)
            i += 1
    lines = [l for l in "".join(out).split("\n") if not l.lstrip().startswith("#")]
    return "\n".join(lines)


def tokens(text):
    return re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d*)?|\S", text)


def skip_braces(t, i):
    """t[i] == '{': index after the matching '}'."""
    d = 0
    while i < len(t):
        if t[i] == "{":
            d += 1
        elif t[i] == "}":
            d -= 1
            if d == 0:
                return i + 1
        i += 1
    return i


def until(t, i, stop=";"):
    j = i
    d = 0
    while j < len(t):
        if t[j] == stop and d <= 0:
            return j
        if t[j] in "({[<":
            d += 1
        elif t[j] in ")}]>":
            d -= 1
        j += 1
    return j


def parse_enum(t, i, enums):
    # t[i] == 'enum'
    name = t[i + 1]
    j = i + 2
    if t[j] != "{":
        return name, j
    k = skip_braces(t, j)
    body = t[j + 1:k - 1]
    vals = [x for x in body if x != ","]
    # drop metadata <...>
    clean, d = [], 0
    for x in vals:
        if x == "<":
            d += 1
        elif x == ">":
            d -= 1
        elif d == 0:
            clean.append(x)
    enums[name] = clean
    return name, k


def parse_type(t, i, enums_decl):
    """Returns (type name or None, index after the type)."""
    if t[i] == "enum":
        name, j = parse_enum(t, i, enums_decl)
        return name, j
    if t[i] in ("array", "class") and i + 1 < len(t) and t[i + 1] == "<":
        j = i + 2
        d = 1
        while j < len(t) and d:
            if t[j] == "<":
                d += 1
            elif t[j] == ">":
                d -= 1
            j += 1
        return t[i], j
    j = i + 1
    name = t[i]
    while j + 1 < len(t) and t[j] == ".":
        name = t[j + 1]
        j += 2
    return name, j


def parse_var(t, i, enums_decl, structs):
    """t[i]=='var': list of (name, type)."""
    j = i + 1
    if t[j] == "(":
        j = until(t, j + 1, ")") + 1
    while t[j].lower() in MODS:
        j += 1
        if j < len(t) and t[j] == "(":  # native(..) etc
            j = until(t, j + 1, ")") + 1
    if t[j] == "struct":
        j = parse_struct(t, j, enums_decl, structs)
    ty, j = parse_type(t, j, enums_decl)
    end = until(t, j, ";")
    names = []
    k = j
    while k < end:
        if re.match(r"[A-Za-z_]", t[k]) and (k == j or t[k - 1] == ","):
            names.append(t[k])
        if t[k] in "[<":
            k = until(t, k + 1, "]" if t[k] == "[" else ">")
        k += 1
    return [(n, ty) for n in names], end + 1


def parse_struct(t, i, enums_decl, structs):
    j = i + 1
    while t[j] != "{" and t[j] != ";":
        j += 1
    head = [x for x in t[i + 1:j] if x not in ("{",)]
    # struct [mods] Name [extends X]
    if "extends" in head:
        name = head[head.index("extends") - 1]
    else:
        name = [x for x in head if re.match(r"[A-Za-z_]", x)][-1]
    k = skip_braces(t, j)
    body = t[j + 1:k - 1]
    members = []
    b = 0
    while b < len(body):
        if body[b] == "var":
            vs, b = parse_var(body, b, enums_decl, structs)
            members += vs
        elif body[b] == "enum":
            _, b = parse_enum(body, b, enums_decl)
        elif body[b] == "struct":
            b = parse_struct(body, b, enums_decl, structs)
        elif body[b] in ("structcpptext", "cppstruct", "structdefaultproperties", "structdefaults") and b + 1 < len(body) and body[b + 1] == "{":
            b = skip_braces(body, b + 1)
        else:
            b += 1
    structs[name] = members
    return k


def parse_func(t, i, j_paren):
    head = t[i:j_paren]
    kwi = next(k for k, x in enumerate(head) if x.lower() in FUNC_KW)
    mods = [x.lower() for x in head[:kwi]]
    native = None
    for k, x in enumerate(head[:kwi]):
        if x.lower() == "native" and k + 2 < kwi and head[k + 1] == "(":
            native = int(head[k + 2])
    kw = head[kwi].lower()
    rest = head[kwi + 1:]
    # Modifiers may follow the keyword too (`function final SetTimer`).
    mods += [x.lower() for x in rest if x.lower() in FUNC_MODS]
    rest = [x for x in rest if x.lower() not in FUNC_MODS]
    if kw != "function" and kw != "event" and kw != "delegate":
        if rest and rest[0] == "(":
            rest = rest[3:]
    # return type and name
    name = rest[-1] if rest else None
    ret = None
    if len(rest) >= 2:
        ret = rest[0]
        if len(rest) >= 3 and rest[1] == ".":
            ret = rest[2]
    end = until(t, j_paren + 1, ")")
    ptoks = t[j_paren + 1:end]
    params = []
    k = 0
    while k < len(ptoks):
        e = until(ptoks, k, ",")
        p = ptoks[k:e]
        pm = set()
        q = 0
        while q < len(p) and p[q].lower() in MODS:
            pm.add(p[q].lower())
            q += 1
        if q < len(p):
            ty, _ = parse_type(p, q, {})
            params.append((ty, "coerce" in pm))
        k = e + 1
    k = end + 1
    while k < len(t) and t[k] not in ("{", ";"):
        k += 1
    if k < len(t) and t[k] == "{":
        k = skip_braces(t, k)
    else:
        k += 1
    return dict(name=name, kw=kw, mods=mods, native=native, ret=ret, params=params), k


def parse_class(text):
    t = tokens(strip(text))
    out = dict(name=None, super=None, vars=[], funcs=[], enums={}, structs={})
    i = 0
    while i < len(t):
        x = t[i].lower()
        if x == "class" and out["name"] is None:
            out["name"] = t[i + 1]
            if t[i + 2].lower() in ("extends", "expands"):
                s = t[i + 3]
                if i + 5 < len(t) and t[i + 4] == ".":
                    s = t[i + 5]
                out["super"] = s
            i = until(t, i, ";") + 1
        elif x in ("cpptext", "defaultproperties", "replication", "cppstruct", "structdefaultproperties") and i + 1 < len(t) and t[i + 1] == "{":
            i = skip_braces(t, i + 1)
        elif x == "var":
            vs, i = parse_var(t, i, out["enums"], out["structs"])
            out["vars"] += vs
        elif x == "enum":
            _, i = parse_enum(t, i, out["enums"])
            while i < len(t) and t[i] == ";":
                i += 1
        elif x == "struct":
            i = parse_struct(t, i, out["enums"], out["structs"])
            while i < len(t) and t[i] == ";":
                i += 1
        elif x == "const":
            i = until(t, i, ";") + 1
        elif x in ("state", "auto", "simulated") and "state" in [y.lower() for y in t[i:i + 3]]:
            while t[i] != "{":
                i += 1
            i = skip_braces(t, i)
        else:
            j = i
            while j < len(t) and t[j] not in ("(", ";", "{") or (j > i and t[j] == "(" and t[j - 1].lower() == "native"):
                if t[j] == "(":
                    j = until(t, j + 1, ")")
                j += 1
            head = [y.lower() for y in t[i:j]]
            if j < len(t) and t[j] == "(" and any(y in FUNC_KW for y in head):
                f, i = parse_func(t, i, j)
                out["funcs"].append(f)
            elif j < len(t) and t[j] == "{":
                i = skip_braces(t, j)
            else:
                i = j + 1
    return out


def main():
    repo, commit = sys.argv[1], sys.argv[2]
    res = {}
    for d in sys.argv[3:]:
        files = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", commit, d],
                               capture_output=True, text=True).stdout.split()
        pkg = {}
        for f in files:
            if not f.lower().endswith(".uc"):
                continue
            raw = subprocess.run(["git", "-C", repo, "show", f"{commit}:{f}"], capture_output=True).stdout
            text = raw.decode("latin-1")
            try:
                c = parse_class(text)
            except Exception as e:  # noqa
                print(f"{f}: {e!r}", file=sys.stderr)
                continue
            if c["name"]:
                c["path"] = f
                pkg[c["name"]] = c
        res[d] = pkg
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
