#!/usr/bin/env python3
"""Fails when a relative link in the documentation does not resolve.

    check_doc_links.py [ROOT]        ROOT: the source tree (default: two folders up)

Checks README.md, CHANGELOG.md and every docs/**/*.md: each Markdown link or image
(`[text](target)`, `![alt](target)`, `[label]: target`) whose target is not a URL must name a
file or folder that exists, relative to the page. A `#fragment` on a Markdown page (or alone,
for the page itself) must name one of that page's headings, by the anchors GitHub makes of them.
Links inside fenced code blocks and inline code are not links and are skipped.
"""
import os
import re
import sys

INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def pages(root):
    found = [os.path.join(root, name) for name in ("README.md", "CHANGELOG.md")]
    for folder, _, files in os.walk(os.path.join(root, "docs")):
        found += [os.path.join(folder, f) for f in files if f.endswith(".md")]
    return sorted(p for p in found if os.path.isfile(p))


def text_lines(path):
    """(line number, line) outside fenced code blocks, with inline code blanked out."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m:
                fence = None if fence == m.group(1) else (fence or m.group(1))
                continue
            if fence is None:
                yield number, re.sub(r"`+[^`]*`+", lambda c: " " * len(c.group(0)), line)


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = text.replace("`", "").strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, found = {}, set()
        fence = None
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = FENCE.match(line)
                if m:
                    fence = None if fence == m.group(1) else (fence or m.group(1))
                    continue
                h = HEADING.match(line) if fence is None else None
                if h:
                    base = slug(h.group(2))
                    n = seen.get(base, 0)
                    seen[base] = n + 1
                    found.add(base if n == 0 else f"{base}-{n}")
                for explicit in re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
                    found.add(explicit)
        cache[path] = found
    return cache[path]


def check(root):
    problems = []
    for page in pages(root):
        for number, line in text_lines(page):
            targets = INLINE.findall(line)
            m = REFERENCE.match(line)
            if m:
                targets.append(m.group(1))
            for target in targets:
                if URL.match(target) or target.startswith("//"):
                    continue
                where = f"{os.path.relpath(page, root)}:{number}"
                path, _, fragment = target.partition("#")
                resolved = page if path == "" else os.path.normpath(
                    os.path.join(os.path.dirname(page), path))
                if path.startswith("/"):
                    problems.append(f"{where}: {target}: absolute path; use a relative link")
                    continue
                if not os.path.exists(resolved):
                    problems.append(f"{where}: {target}: no such file")
                    continue
                if fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                    problems.append(f"{where}: {target}: no heading with anchor #{fragment}")
    return problems


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    problems = check(root)
    for p in problems:
        print(p, file=sys.stderr)
    checked = len(pages(root))
    if problems:
        print(f"check_doc_links: {len(problems)} broken link(s) in {checked} pages", file=sys.stderr)
        return 1
    print(f"check_doc_links: every relative link in {checked} pages resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
