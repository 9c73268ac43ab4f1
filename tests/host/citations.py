# SPDX-License-Identifier: GPL-2.0
"""The checker of tests/host/citations.sh (the rule is in its header).

usage: citations.py [--text FLAVOUR[,FLAVOUR...] LABEL FILE | --page FILE]...

CITE_TREES: "FLAVOUR=DIR ..." the patched tree of each flavour there is;
CITE_FLAVOURS: every flavour's name (patches/flavours).  Prints, per label
(a --text LABEL or a page) and in order, "LABEL<TAB>checked<TAB>failed<TAB>
flavours without a tree" and then each failure as "#<TAB>MESSAGE".
"""
import html
import os
import re
import sys

FLAVOURS = os.environ.get("CITE_FLAVOURS", "").split()
TREE_DIRS = dict(t.split("=", 1) for t in os.environ.get("CITE_TREES", "").split())

# FILE:LINE[-LINE][, LINE[-LINE]]... ("F:2625, 6.12": a version; "F:2184, 8
# at": a count)
CIT = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.[chS]):"
                 r"(\d+(?:-\d+)?(?!\.?\d)(?:, ?\d+(?:-\d+)?(?![.\d])(?! ?[A-Za-z]))*)")
PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+")
# 'quoted text', or a word: name*, name(, or a bare word
WORD = re.compile(r"(?<!\w)'([^']+)'(?!\w)|\b([A-Za-z_][A-Za-z0-9_]*)(\*?)(\(?)")
# a word beside an operator is an identifier of an expression ("ret = pinned")
EXPR = re.compile(r"\b([a-z_][a-z0-9_]*) *(?:[=<>?]|!=)|(?:[=<>?]|!=) *-?([a-z_][a-z0-9_]*)\b")
ERRNO = re.compile(r"^E[A-Z0-9]{2,}$")
# where the text next to a citation stops speaking of it
BOUNDARY = re.compile(r"[;\t\n]|\. ")
# a kernel report's kind names what its site holds: warning, WARNINGs,
# WARNs... a WARN, BUG a BUG
REPORT_WORD = re.compile(r"^(?:(?i:warn(?:ing)?s?)|BUGs?)$")
# the mm selftest every flavour runs is 6.12's (docs/longterm-guide.md)
SELFTESTS = {"gup_longterm.c": "@mainline/tools/testing/selftests/mm/gup_longterm.c"}

TREES = {}


def names_in(window):
    """The code names a stretch of text mentions, as (name, how to match)."""
    out = []
    window = PATH.sub(" ", window)
    for m in EXPR.finditer(window):
        out.append((m.group(1) or m.group(2), "word"))
    for m in WORD.finditer(window):
        quoted, word, star, paren = m.groups()
        if quoted:
            out.append((quoted, "text"))
        elif REPORT_WORD.match(word):
            out.append(("BUG" if word.startswith("BUG") else "WARN", "prefix"))
        elif star:
            out.append((word, "prefix"))
        elif paren or "_" in word or ERRNO.match(word):
            out.append((word, "word"))
    return out


def strip_comments(raw):
    """The lines with their C comments blanked (a line count kept)."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: "\n" * m.group(0).count("\n"),
                  "\n".join(raw), flags=re.S)
    return text.split("\n")


def function_bodies(raw, name):
    """(first, last) line of each definition of function or macro name."""
    spans = []
    pat = re.compile(r"^(?:#define\s+|[A-Za-z_].*[\s*])?" + re.escape(name) + r"\s*\(")
    for i, line in enumerate(raw):
        if not pat.match(line) or line.rstrip().endswith(";"):
            continue
        j = i
        if line.startswith("#define"):
            while raw[j].rstrip().endswith("\\") and j + 1 < len(raw):
                j += 1
            spans.append((i + 1, j + 1))
            continue
        while j < len(raw) and not raw[j].startswith("{"):
            if raw[j].rstrip().endswith(";") or (j > i and not raw[j].strip()):
                j = len(raw)
            j += 1
        k = j
        while k < len(raw) and not raw[k].startswith("}"):
            k += 1
        if j < len(raw):
            spans.append((i + 1, k + 1))
    return spans


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = {}
        self.headers = None

    def lines(self, path):
        """(raw lines, lines without comments) of path, or None."""
        if path.startswith("@"):
            fl, _, path = path[1:].partition("/")
            return TREES[fl].lines(path) if fl in TREES else None
        if path not in self.files:
            full = os.path.join(self.root, path)
            self.files[path] = None
            if os.path.isfile(full):
                with open(full, errors="replace") as f:
                    raw = f.read().split("\n")
                self.files[path] = (raw, strip_comments(raw))
        return self.files[path]

    def header_bodies(self, name):
        """The bodies of the macros and inline functions include/ names so."""
        if self.headers is None:
            self.headers = {}
            defs = re.compile(r"#define\s+(\w+)\(|^static inline .*?\b(\w+)\(", re.M)
            for d, _, fs in os.walk(os.path.join(self.root, "include")):
                for f in fs:
                    if f.endswith(".h"):
                        p = os.path.join(d, f)
                        with open(p, errors="replace") as fh:
                            for a, b in set(defs.findall(fh.read())):
                                self.headers.setdefault(a or b, set()).add(
                                    os.path.relpath(p, self.root))
        out = []
        for p in self.headers.get(name, ()):
            raw, code = self.lines(p)
            out += ["\n".join(code[a - 1:b]) for a, b in function_bodies(raw, name)]
        return out


def holds(name, how, code, raw):
    if how == "text":
        return name in raw
    if how == "prefix":
        return name in code
    return re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", code) is not None


def check_range(tree, path, a, b, before, after):
    """None if lines a-b of path hold what the text names, else why not."""
    got = tree.lines(path)
    if got is None:
        return "no such file in the tree"
    raw, code = got
    if a < 1 or b > len(raw) or a > b:
        return "the file has %d lines" % len(raw)
    names = before + after
    if not names:
        return "no code name next to the citation to check it by"
    if a != b and not (raw[a - 1].strip() and raw[b - 1].strip()):
        return "the range starts or ends on a blank line"
    lines = range(a - 1, b)
    # (1) a line of it holds a name
    if any(holds(n, h, code[i], raw[i]) for i in lines for n, h in names):
        return None
    # (2) a report's site: the WARN or BUG of a macro or inline called there
    for n, _ in names:
        if n in ("BUG", "WARN") and any(
                n in body for i in lines
                for call in re.findall(r"(\w+)\s*\(", code[i])
                for body in tree.header_bodies(call)):
            return None
    # (3) code inside a function the text names before it, which holds
    # nothing else the text names: nothing more precise to point at
    if any(code[i].strip() for i in lines):
        for n, h in before:
            for f, l in function_bodies(raw, n) if h == "word" else ():
                if f <= a and b <= l and not any(
                        holds(m, j, x, x) for m, j in names if m != n
                        for x in code[f - 1:l]):
                    return None
    shown = raw[a - 1].strip() if a == b else "%s ... %s" % (
        raw[a - 1].strip(), raw[b - 1].strip())
    return "holds none of %s: '%s'" % (
        ", ".join(sorted({n for n, _ in names})), shown[:90])


def citations(text):
    """Each citation: (path, [(first, last)...], names before, names after, match)."""
    prev, lastdir, lastnames = 0, "", None
    # a decoded backtrace's callers (after its first arrow) come from the
    # flavour's own vmlinux, measured, not written: not checked
    text = text.split("\u2190")[0]
    for m in CIT.finditer(text):
        start = prev
        for b in BOUNDARY.finditer(text, prev, m.start()):
            start = b.end()
        before = names_in(text[start:m.start()])
        between = VERSION_SEP.sub("", text[start:m.start()])
        if not before and lastnames and not between.strip():
            before = lastnames      # "(a.c:1; b.c:2)", "(6.1 a.c:1, 6.12 a.c:2)": the same names
        lastnames = before
        nxt = CIT.search(text, m.end())
        stop = nxt.start() if nxt else len(text)
        b = BOUNDARY.search(text, m.end(), stop)
        after = names_in(text[m.end():b.start() if b else stop])
        prev = m.end()
        path = m.group(1)
        if "/" in path:
            lastdir = os.path.dirname(path)
        elif path in SELFTESTS:
            path = SELFTESTS[path]
        elif lastdir:
            path = lastdir + "/" + path     # "siw_mem.c:427; siw_verbs.c:1354"
        ranges = []
        for part in re.split(r", ?", m.group(2)):
            a, _, z = part.partition("-")
            ranges.append((int(a), int(z or a)))
        yield path, ranges, before, after, m


# ---- generated pages: the flavour each paragraph, row or bullet speaks of ----

FL = "|".join(re.escape(f) for f in sorted(FLAVOURS, key=len, reverse=True)) or "(?!)"
ROW_FL = re.compile(r"^`?(%s)(?:\+[\w+]+)?`?$" % FL)
HEAD_FL = re.compile(r"^#+ .*?`(%s)`" % FL)
BULLET_FL = re.compile(r"^- (?:\*\*.*?\*\*, )?(%s)(?:\+[\w+]+)?(?: \([^)]*\))?: " % FL)
BULLET_VER = re.compile(r"^- (6\.1\.\d+|6\.12\.\d+|7\.3\.\d+): ")
# gupctl diff --page: "- A: `F`: ..." names side A's flavour, and each
# "- A's reason: ..." speaks of it (the title names both sides)
SIDE_FL = re.compile(r"^- ([AB]): `(%s)`:" % FL)
SIDE_REASON = re.compile(r"^- ([AB])'s reason: ")
ITEM = re.compile(r"^(?:[-*] |\d+\. |\|)")


def page_items(path):
    """[line, flavours, text] of each paragraph, bullet or table row."""
    with open(path) as f:
        lines = html.unescape(f.read()).split("\n")
    items, section, level, refs, comment, sides = [], None, 0, {}, False, {}
    for no, line in enumerate(lines, 1):
        if comment or line.startswith("<!--"):
            comment = "-->" not in line
            continue
        h = re.match(r"^(#+) ", line)
        if h:
            m = HEAD_FL.match(line)
            if m:
                section, level = m.group(1), len(h.group(1))
            elif section and len(h.group(1)) <= level:
                section = None
        if not line.strip() or h:
            items.append(None)
            continue
        if not ITEM.match(line) and items and items[-1] and not items[-1][3]:
            items[-1][2] += " " + line.strip()
            continue
        fl = [section or "stock"]
        if line.startswith("|"):
            cells = re.split(r"^\| | \| | \|$", line)
            m = ROW_FL.match(cells[1]) if len(cells) > 1 else None
            if m:
                fl = [m.group(1)]
                for n, t in re.findall(r"\[(\d+)\]|\b(T\d+)\b", line):
                    refs.setdefault(n or t, set()).add(m.group(1))
            line = "\n".join(cells)
        m = SIDE_FL.match(line)
        if m:
            sides[m.group(1)] = m.group(2)
        m = SIDE_REASON.match(line)
        if m and m.group(1) in sides:
            fl = [sides[m.group(1)]]
        m = BULLET_FL.match(line) or BULLET_VER.match(line)
        if m:
            fl = [m.group(1) if m.group(1) in FLAVOURS else
                  "mainline" if m.group(1).startswith("6.12") else
                  "latest" if m.group(1).startswith("7.3") else "stock"]
        items.append([no, fl, line, line.startswith("\n")])
    items = [i for i in items if i]
    # a footnote "N. ..." or a note "- **TN**: ..." speaks of its rows
    for item in items:
        m = re.match(r"^(\d+)\. |^- \*\*(T\d+)\*\*: ", item[2])
        if m and (m.group(1) or m.group(2)) in refs:
            item[1] = sorted(refs[m.group(1) or m.group(2)])
    return items


# what may stand between two citations of the same names: separators, and
# the version each names ("(6.1 a.c:1, 6.12 a.c:2)")
VERSION_SEP = re.compile(r"(?<![\w.])(?:6\.12|6\.1|7\.3|v1|v7|v9)(?![\w.])|[,;(]")
# a tree named by its version right before a citation: "6.12 mm/gup.c:L"
VERSION_TREE = {"6.1": "stock", "6.12": "mainline", "7.3": "latest", "v1": "gup-v1",
                "v7": "gup-v7", "v9": "gup-v9"}


def inline_flavour(text, m):
    """A flavour named at the citation: "gup-v1's F:L", "F:L (gup-v1: ...)",
    "6.12 F:L" (a version: VERSION_TREE)."""
    b = re.search(r"\b(%s)'s $" % FL, text[max(0, m.start() - 40):m.start()])
    a = re.match(r" \((%s): " % FL, text[m.end():m.end() + 40])
    v = re.search(r"(?<![\w.])(6\.12|6\.1|7\.3|v1|v7|v9) $", text[max(0, m.start() - 8):m.start()])
    if b or a:
        return (b or a).group(1)
    return VERSION_TREE[v.group(1)] if v else None


def main():
    jobs, args = [], sys.argv[1:]
    while args:
        kind = args.pop(0)
        if kind == "--page":
            page = args.pop(0)
            jobs.append((page, [(no, fl, t) for no, fl, t, _ in page_items(page)]))
        else:
            fls, label, fn = args.pop(0).split(","), args.pop(0), args.pop(0)
            with open(fn) as f:
                jobs.append((label, [(no, fls, t) for no, t in enumerate(f, 1)]))
    TREES.update((f, Tree(d)) for f, d in TREE_DIRS.items())
    for label, texts in jobs:
        checked, fails, missing = 0, [], set()
        for no, fls, text in texts:
            for path, ranges, before, after, m in citations(text):
                inl = inline_flavour(text, m)
                for fl in [inl] if inl else fls:
                    need = {fl} | ({path[1:].split("/")[0]} if path[0] == "@" else set())
                    if need - set(TREES):
                        missing |= need - set(TREES)
                        continue
                    checked += 1
                    for a, b in ranges:
                        why = check_range(TREES[fl], path, a, b, before, after)
                        if why:
                            fails.append("%s:%d: %s's %s: %s" % (
                                label, no, fl, m.group(0), why))
                            break
        print("%s\t%d\t%d\t%s" % (label, checked, len(fails),
                                  ",".join(sorted(missing))))
        seen = set()
        for x in fails:
            if x not in seen:
                seen.add(x)
                print("#\t" + x)


main()
