#!/usr/bin/env python3
"""Counts colons, semicolons and parentheses per 100 words of prose in README.md and
docs/*.md, so that a rewrite can show it reads in plainer sentences.

How it counts. Fenced code blocks, table rows (lines that start with "|"), HTML
comments and inline code spans are left out, because they are not sentences. A link
keeps its text and loses its target, and a bare URL is dropped, so the colon in
"https:" and a link's brackets are not counted. A word is a run of characters between
spaces. A parenthesis is one opening "(", so a pair counts once. Every figure is per
100 words of what is left.

Usage: python3 scripts/prose-stats.py [FILE...]    (default: README.md docs/*.md)
"""

import glob
import os
import re
import sys


def prose(text):
    """The text of a Markdown page without code, tables, comments and link targets."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    kept = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.lstrip().startswith("|"):
            continue
        kept.append(line)
    text = "\n".join(kept)
    # Inline code: a run of backticks up to the same run, possibly over a line break.
    text = re.sub(r"(`+)(.+?)\1", " ", text, flags=re.S)
    text = re.sub(r"\]\([^)\s]*\)", "]", text)
    text = re.sub(r"https?://\S+", " ", text)
    return text


def counts(text):
    p = prose(text)
    return len(p.split()), p.count(":"), p.count(";"), p.count("(")


def main(argv):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = argv or [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md"))
    )
    total = [0, 0, 0, 0]
    print(f"{'file':<32} {'words':>6} {'colons':>7} {'semis':>6} {'parens':>7}")
    for path in files:
        with open(path, encoding="utf-8") as f:
            c = counts(f.read())
        total = [a + b for a, b in zip(total, c)]
        words = max(c[0], 1)
        name = os.path.relpath(path, root)
        print(
            f"{name:<32} {c[0]:>6} {100 * c[1] / words:>7.2f} "
            f"{100 * c[2] / words:>6.2f} {100 * c[3] / words:>7.2f}"
        )
    words = max(total[0], 1)
    print(
        f"{'all':<32} {total[0]:>6} {100 * total[1] / words:>7.2f} "
        f"{100 * total[2] / words:>6.2f} {100 * total[3] / words:>7.2f}"
    )
    print("(colons, semicolons and opening parentheses per 100 words)")


if __name__ == "__main__":
    main(sys.argv[1:])
