"""python3 -m uringlab.makehelp MAKEFILE [--check]: make help, from the
Makefile's own annotations, so the list cannot drift from the targets.

    #@ GROUP TARGET: text        a target's entry, above its rule
    #@   more text               its continuation
    #@ takes: VAR VAR            the variables it reads
    #% VAR: text                 a variable (#%   continues it)
    #% internal: VAR VAR         variables the scripts read that are not
                                 for users (test hooks, plumbing)

--check is make test's: every .PHONY target has an entry and every entry
is a rule, every variable a target takes is described and every described
variable its recipe reads is among them, and every variable the lab's scripts read
(${VAR:-...} in bench/, tracing/, tests/, vm/) is described or internal.
It prints TAP and exits 1 on a gap.
"""
import glob
import os
import re
import sys
import textwrap

GROUPS = ("run", "inspect", "build", "maintain")
# the text column, so that make help fits an 80-column terminal
WIDTH = 56
SCRIPTS = ("bench/*.sh", "bench/gate/*.sh", "tracing/*.sh", "tests/*.sh", "vm/*.sh")


def parse(text):
    targets, variables, internal = {}, {}, set()
    cur = var = None
    for line in text.splitlines():
        if line.startswith("#@ "):
            body = line[3:]
            m = re.match(r"(\w+) ([\w-]+): (.*)", body)
            if body.startswith("takes:"):
                cur["takes"] = body[len("takes:"):].split()
            elif m and m.group(1) in GROUPS:
                cur = targets[m.group(2)] = {"group": m.group(1), "text": [m.group(3)], "takes": []}
            elif cur is not None:
                cur["text"].append(body.strip())
        elif line.startswith("#% "):
            body = line[3:]
            m = re.match(r"([A-Z_][A-Z0-9_]*|internal): (.*)", body)
            if m and m.group(1) == "internal":
                var = "internal"
                internal.update(m.group(2).split())
            elif m:
                var = m.group(1)
                variables[var] = [m.group(2)]
            elif var == "internal":
                internal.update(body.split())
            elif var:
                variables[var].append(body.strip())
        else:
            cur = None if not line.startswith("#") else cur
            var = None
    return targets, variables, internal


def phony(text):
    """every .PHONY line's targets, once each: a second .PHONY further
    down counts too (make's ".PHONY :" spelling and comments allowed)"""
    out = []
    for m in re.finditer(r"^[ \t]*\.PHONY[ \t]*:((?:.*\\\n)*.*)", text, re.M):
        body = m.group(1).replace("\\\n", " ").split("#", 1)[0]
        out += body.split()
    return list(dict.fromkeys(out))


def rules(text):
    """{target: its recipe's text}, for the rules of one target each"""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^([a-z][\w-]*):(?!=)", line)
        if m:
            cur = m.group(1)
            out.setdefault(cur, "")
        elif line.startswith("\t") and cur:
            out[cur] += line + "\n"
        elif not line.startswith("\t"):
            cur = None if line.strip() and not line.startswith("#") else cur
    return out


def script_variables(lab):
    found = {}
    for pattern in SCRIPTS:
        for path in glob.glob(os.path.join(lab, pattern)):
            with open(path) as f:
                for v in re.findall(r"\$\{([A-Z_][A-Z0-9_]*)(?::?[-=+])", f.read()):
                    found.setdefault(v, os.path.relpath(path, lab))
    return found


def show(targets, variables):
    print("uring-restrict-lab: make TARGET [VAR=value ...]")
    for g in GROUPS:
        print(f"\n{g}:")
        for name, t in targets.items():
            if t["group"] != g:
                continue
            lines = textwrap.wrap(" ".join(t["text"]), WIDTH)
            if t["takes"]:
                lines += textwrap.wrap("takes " + " ".join(t["takes"]), WIDTH)
            for i, line in enumerate(lines):
                print(f"  {name if i == 0 else '':<22}{line}")
    print("\nvariables:")
    for name, text in variables.items():
        for i, line in enumerate(textwrap.wrap(" ".join(text), WIDTH)):
            print(f"  {name if i == 0 else '':<22}{line}")


def check(text, lab):
    targets, variables, internal = parse(text)
    cases = []
    for t in phony(text):
        cases.append((t in targets, f"target {t} has a make help entry"))
    recipes = rules(text)
    for name, t in targets.items():
        cases.append((name in recipes, f"make help's entry {name} is a rule of the Makefile"))
        gaps = [v for v in t["takes"] if v not in variables]
        cases.append((not gaps, f"every variable make {name} takes is described"
                      + (f": not {' '.join(gaps)}" if gaps else "")))
        # a described variable its own recipe reads must be in its takes
        # (help prints their values: it takes none)
        used = set() if name == "help" else \
            set(re.findall(r"\$\(([A-Z_][A-Z0-9_]*)\)", recipes.get(name, "")))
        missed = sorted(v for v in used & set(variables) if v not in t["takes"])
        cases.append((not missed, f"make {name}'s recipe reads only variables it lists"
                      + (f": not {' '.join(missed)}" if missed else "")))
    for v, where in sorted(script_variables(lab).items()):
        cases.append((v in variables or v in internal,
                      f"{v} ({where}) is described or internal"))
    print(f"1..{len(cases)}")
    for n, (ok, what) in enumerate(cases, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    return 0 if all(ok for ok, _ in cases) else 1


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--check"):
        sys.exit(__doc__)
    path = sys.argv[1]
    with open(path) as f:
        text = f.read()
    if len(sys.argv) == 3:
        return check(text, os.path.dirname(os.path.abspath(path)))
    show(*parse(text)[:2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
