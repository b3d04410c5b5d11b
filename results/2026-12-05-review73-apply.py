#!/usr/bin/env python3
"""Rewrite BASE..BRANCH of a kernel branch from a data file of fixes.

Usage: apply.py [--fixes FILE] [--set NAME] [--dry-run] BRANCH BASE_TAG
Run inside a worktree of the kernel repository.

The data file (python) defines SETS = {name: {"msg": [...], "files": [...],
"folds": [...]}}; the set is chosen by --set or by BASE_TAG
(SET_FOR_BASE = {base_tag: name}).

msg entry:   {"subject": S, "new_subject": S2 or None,
              "repl": [(old, new), ...]}
             The commit is found by S or S2. Each old must be in the message,
             unless new already is (idempotence). A subject change is done by
             new_subject.
files entry: {"path": P, "old": O, "new": N, "first": SUBJECT, "count": 1}
             Applied to the tree of every commit whose P contains O (and not
             already N). It must apply (or be present already) at the commit
             "first", and somewhere at all.
folds entry: {"fixup": S, "into": T, "body": B}
             The fixup commit's diff is added to T and every commit between
             T and the fixup; the fixup commit is dropped; T's message body
             (between subject and trailers) becomes B. Run again after the
             fold, the fixup is absent and T's body must already be B.

Commits are rewritten with git plumbing (commit-tree) keeping author and
committer names and dates, so an unchanged commit keeps its SHA and a
second run changes nothing. The old head is kept in refs/msgfix-backup/.
Everything that does not apply makes the run fail before any ref moves.
"""
import os, re, subprocess, sys, tempfile, argparse, runpy

def git(*args, inp=None, env=None, check=True):
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run(["git"] + list(args), input=inp, capture_output=True, env=e)
    if check and p.returncode:
        die("git %s: %s" % (" ".join(args[:3]), p.stderr.decode(errors="replace")))
    return p.stdout

def die(msg):
    print("msgfix: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)

def out(*a):
    return git(*a).decode().strip()

TRAILER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: \S")

def split_msg(msg):
    """subject, body, trailers (the last paragraph if all trailer lines)."""
    lines = msg.rstrip("\n").split("\n")
    subject = lines[0]
    rest = "\n".join(lines[1:]).strip("\n")
    paras = rest.split("\n\n")
    trailers = ""
    if paras and all(TRAILER.match(l) for l in paras[-1].split("\n") if l):
        trailers = paras.pop()
    return subject, "\n\n".join(paras), trailers

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixes", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "2026-12-05-review73-fixes.py"))
    ap.add_argument("--set")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("branch")
    ap.add_argument("base")
    a = ap.parse_args()

    data = runpy.run_path(a.fixes)
    setname = a.set or data["SET_FOR_BASE"].get(a.base)
    if not setname:
        die("no fixes set for base %s (use --set)" % a.base)
    fx = data["SETS"][setname]
    msgs, files, folds = fx.get("msg", []), fx.get("files", []), fx.get("folds", [])

    ref = "refs/heads/" + a.branch
    oldhead = out("rev-parse", "--verify", ref + "^{commit}")
    base = out("rev-parse", "--verify", a.base + "^{commit}")
    if out("rev-list", "--merges", base + ".." + oldhead):
        die("merges in %s..%s" % (a.base, a.branch))
    commits = out("rev-list", "--reverse", base + ".." + oldhead).split()
    info = {}
    for c in commits:
        raw = git("cat-file", "commit", c).decode()
        hdr, msg = raw.split("\n\n", 1)
        h = dict(l.split(" ", 1) for l in hdr.split("\n") if " " in l)
        info[c] = {"msg": msg, "tree": h["tree"], "author": h["author"],
                   "committer": h["committer"], "subject": msg.split("\n", 1)[0]}
    bysubj = {}
    for c in commits:
        s = info[c]["subject"]
        if s in bysubj:
            die("subject twice in range: %s" % s)
        bysubj[s] = c

    def find(subject, alt=None, must=True):
        c = bysubj.get(subject) or (alt and bysubj.get(alt))
        if not c and must:
            die("no commit with subject %r%s" % (subject, " (or %r)" % alt if alt else ""))
        return c

    status = []          # report lines
    # --- message entries
    msgplan = {}
    for m in msgs:
        c = find(m["subject"], m.get("new_subject"))
        msgplan.setdefault(c, []).append(m)
    # --- folds
    foldplan = []        # (T, F or None, body)
    idx = {c: i for i, c in enumerate(commits)}
    for f in folds:
        T = find(f["into"])
        F = find(f["fixup"], must=False)
        if F is None:
            if split_msg(info[T]["msg"])[1] != f["body"].strip("\n"):
                die("fold: %r absent but %r does not carry the folded message"
                    % (f["fixup"], f["into"]))
            status.append("fold  already  %s" % f["fixup"])
            continue
        if idx[F] <= idx[T]:
            die("fold: fixup %r is not after %r" % (f["fixup"], f["into"]))
        diff = git("diff-tree", "-p", "--binary", "--full-index", F + "^", F)
        foldplan.append((T, F, f["body"].strip("\n"), diff))

    fstate = [{"applied": [], "already": []} for _ in files]
    cache = {}
    def blob_of(tree, path):
        key = (tree, path)
        if key not in cache:
            p = git("ls-tree", tree, "--", path).decode().strip()
            cache[key] = None if not p else (p.split()[0], p.split()[2])
        return cache[key]

    tmpdir = tempfile.mkdtemp(prefix="msgfix.")
    idxfile = os.path.join(tmpdir, "index")
    ienv = {"GIT_INDEX_FILE": idxfile}

    newparent = base
    mapping = {}
    for c in commits:
        ci = info[c]
        s = ci["subject"]
        if any(F == c for _, F, _, _ in foldplan):
            # dropped; its change is in the new parent already
            T = [t for t, F, _, _ in foldplan if F == c][0]
            status.append("fold  applied  %s -> %s" % (s, info[T]["subject"]))
            mapping[c] = newparent
            ftree = ci["tree"]
            continue
        tree = ci["tree"]
        loaded = False
        def load():
            nonlocal loaded
            if not loaded:
                git("read-tree", tree, env=ienv)
                loaded = True
        for T, F, body, diff in foldplan:
            if idx[T] <= idx[c] < idx[F]:
                load()
                p = subprocess.run(["git", "apply", "--cached", "-"], input=diff,
                                   capture_output=True, env=dict(os.environ, **ienv))
                if p.returncode:
                    die("fold: diff of %r does not apply at %r: %s"
                        % (info[F]["subject"], s, p.stderr.decode()))
        # file replacements
        for i, f in enumerate(files):
            if loaded:
                tr = git("write-tree", env=ienv).decode().strip()
            else:
                tr = tree
            b = blob_of(tr, f["path"])
            if not b:
                continue
            text = git("cat-file", "blob", b[1]).decode()
            if f["new"] in text and (f["old"] not in text or f["old"] in f["new"]):
                fstate[i]["already"].append(s)
                continue
            n = text.count(f["old"])
            if n == 0:
                continue
            if n != f.get("count", 1):
                die("%s: %d occurrences of old text at %r (want %d): %r"
                    % (f["path"], n, s, f.get("count", 1), f["old"][:60]))
            text = text.replace(f["old"], f["new"])
            sha = git("hash-object", "-w", "--stdin", inp=text.encode()).decode().strip()
            load()
            git("update-index", "--cacheinfo", "%s,%s,%s" % (b[0], sha, f["path"]), env=ienv)
            fstate[i]["applied"].append(s)
        if loaded:
            tree = git("write-tree", env=ienv).decode().strip()
        # message
        msg = ci["msg"]
        for m in msgplan.get(c, []):
            for old, new in m.get("repl", []):
                if new in msg and (old not in msg or old in new):
                    status.append("msg   already  %s: %r" % (s[:50], new[:40]))
                    continue
                n = msg.count(old)
                if n != 1:
                    die("message of %r: old text found %d times: %r" % (s, n, old[:70]))
                msg = msg.replace(old, new)
                status.append("msg   applied  %s: %r" % (s[:50], new[:40]))
            ns = m.get("new_subject")
            if ns:
                subj = msg.split("\n", 1)[0]
                if subj == ns:
                    status.append("subj  already  %s" % ns)
                elif subj == m["subject"]:
                    msg = ns + msg[len(subj):]
                    status.append("subj  applied  %s" % ns)
                else:
                    die("subject %r is neither old nor new" % subj)
        for T, F, body, diff in foldplan:
            if c == T:
                subj, _, tr = split_msg(msg)
                msg = subj + "\n\n" + body + "\n" + ("\n" + tr + "\n" if tr else "")
        parent = newparent
        if tree == ci["tree"] and msg == ci["msg"] and parent == out("rev-parse", c + "^"):
            new = c
        else:
            def ident(v):
                m = re.match(r"(.*) <(.*)> (\d+ [+-]\d{4})$", v)
                return m.group(1), m.group(2), m.group(3)
            an, ae, ad = ident(ci["author"])
            cn, ce, cd = ident(ci["committer"])
            env = {"GIT_AUTHOR_NAME": an, "GIT_AUTHOR_EMAIL": ae, "GIT_AUTHOR_DATE": "@" + ad,
                   "GIT_COMMITTER_NAME": cn, "GIT_COMMITTER_EMAIL": ce, "GIT_COMMITTER_DATE": "@" + cd}
            new = git("commit-tree", tree, "-p", parent, inp=msg.encode(), env=env).decode().strip()
        mapping[c] = new
        newparent = new
        # after a dropped fixup, check that the fold kept the tree
    fixpaths = {f["path"] for f in files}
    for T, F, body, diff in foldplan:
        # the new commit in F's place must have F's tree, but for file fixes
        d = out("diff-tree", "-r", "--name-only", mapping[F], F).split()
        if set(d) - fixpaths:
            die("fold of %r changed the tree beyond the file fixes: %s"
                % (info[F]["subject"], " ".join(sorted(set(d) - fixpaths))))

    # report per file entry
    for i, f in enumerate(files):
        st = fstate[i]
        first = f.get("first")
        tag = "%s %r" % (f["path"], f["old"][:40])
        if not st["applied"] and not st["already"]:
            die("file fix never applied: %s" % tag)
        if first and first not in st["applied"] + st["already"] and \
           not (f.get("first_new") and f["first_new"] in st["applied"] + st["already"]):
            die("file fix not applied at %r: %s" % (first, tag))
        status.append("file  %s  %s: applied in %d, already in %d commit(s)"
                      % ("applied" if st["applied"] else "already", tag,
                         len(st["applied"]), len(st["already"])))
    newhead = newparent
    for l in status:
        print(l)
    print("msgfix: %s %s -> %s" % (a.branch, oldhead[:12], newhead[:12]))
    if newhead == oldhead or a.dry_run:
        print("msgfix: nothing to change" if newhead == oldhead else "msgfix: dry run")
        return
    # move the ref; the branch may be checked out only in this worktree
    wt = git("worktree", "list", "--porcelain").decode().split("\n\n")
    here = os.path.realpath(out("rev-parse", "--show-toplevel"))
    for w in wt:
        if ("branch " + ref) in w.split("\n"):
            path = w.split("\n")[0].split(" ", 1)[1]
            if os.path.realpath(path) != here:
                die("%s is checked out in %s; run there or detach it" % (a.branch, path))
    git("update-ref", "refs/msgfix-backup/" + a.branch, oldhead)
    if git("symbolic-ref", "-q", "HEAD", check=False).decode().strip() == ref:
        if out("status", "--porcelain", "-uno"):
            die("worktree not clean")
        git("reset", "-q", "--keep", newhead)
    else:
        git("update-ref", "-m", "msgfix", ref, newhead, oldhead)
    print("msgfix: %s now %s (old head in refs/msgfix-backup/%s)" % (a.branch, newhead, a.branch))

main()
