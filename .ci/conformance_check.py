#!/usr/bin/env python3
"""Compares a conformance run (run.py --json) with the known-failures list.

The list has one case id a line, then whitespace and a short reason; '#'
starts a comment. Exit status 1 when a case outside the list failed or a
listed case passed (or is gone from the corpus). With SVC_CONFORMANCE_UPDATE=1
the list is rewritten from the run instead: still-failing ids keep their
reasons, new ones get the runner's first problem as theirs.
"""
import collections
import json
import os
import sys


HEADER = """# Conformance cases expected to fail today: id, then why (the issue that
# covers it and the case's name). .ci/conformance fails when one of these
# passes, so take it off the list in the change that fixes it.
"""


def read_list(path):
    known = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            case_id, _, reason = line.partition(" ")
            known[case_id] = reason.strip()
    return known


def main():
    results_path, list_path = sys.argv[1], sys.argv[2]
    with open(results_path, encoding="utf-8") as f:
        results = json.load(f)
    outcome = {c["id"]: c for c in results["cases"]}
    failed = {c["id"]: c for c in results["failures"]}
    known = read_list(list_path) if os.path.exists(list_path) else {}

    counts = collections.Counter((c["seed"], c["outcome"]) for c in results["cases"])
    for seed in ("in", "beyond"):
        p, f, s = counts[(seed, "passed")], counts[(seed, "failed")], counts[(seed, "skipped")]
        print(f"seed {seed}: {p} passed, {f} failed, {s} skipped")

    if os.environ.get("SVC_CONFORMANCE_UPDATE") == "1":
        with open(list_path, "w", encoding="utf-8") as out:
            out.write(HEADER)
            for case_id in sorted(failed, key=sort_key):
                reason = known.get(case_id) or first_problem(failed[case_id])
                out.write(f"{case_id} {reason}\n")
        print(f"wrote {len(failed)} ids to {list_path}")
        return 0

    unexpected = [i for i in failed if i not in known]
    fixed = [i for i in known if outcome.get(i, {}).get("outcome") == "passed"]
    gone = [i for i in known if i not in outcome]
    for i in sorted(unexpected, key=sort_key):
        print(f"FAIL (not in the known-failures list) {i}: {first_problem(failed[i])}")
    for i in sorted(fixed, key=sort_key):
        print(f"PASS (listed as a known failure; take it off the list) {i}")
    for i in sorted(gone, key=sort_key):
        print(f"GONE (listed, but no such case ran) {i}")
    if unexpected or fixed or gone:
        return 1
    print(f"conformance: {len(failed)} failures, all known")
    return 0


def first_problem(case):
    problems = case.get("problems") or [case.get("reason") or "failed"]
    text = " ".join(str(problems[0]).split())
    return text[:160]


def sort_key(case_id):
    spec, _, rest = case_id.partition(":")
    line = "".join(ch for ch in rest.split("@")[0] if ch.isdigit())
    return (spec, int(line or 0), rest)


if __name__ == "__main__":
    sys.exit(main())
