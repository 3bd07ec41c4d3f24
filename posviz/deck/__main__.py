"""``python -m posviz.deck export DECK -o OUT.html``: a deck as one self-contained HTML file.

DECK is a deck file (``decks/rope.toml``, TOML or JSON), a shipped deck's name (``rope``), or ``-``
for a TOML file on standard input. OUT ``-`` writes the file to standard output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from posviz.deck.export import build
from posviz.deck.slides import slides_of
from posviz.ui.deck import model


def read_deck(source: str) -> model.Deck:
    """The deck ``source`` names (a file, a shipped deck's name, or ``-`` for standard input)."""
    if source == "-":
        return model.loads(sys.stdin.buffer.read(model.MAX_FILE_BYTES + 1))
    path = Path(source)
    if path.is_file():
        return model.loads(path.read_bytes()[: model.MAX_FILE_BYTES + 1], name=path.name)
    return model.from_link_value(source)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m posviz.deck", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="the deck as one HTML file that needs no server and no network")
    export.add_argument("deck", help="a deck file (.toml or .json), a shipped deck's name, or - (TOML on stdin)")
    export.add_argument("-o", "--output", required=True, help="the HTML file to write (- for standard output)")
    args = parser.parse_args(argv)
    deck = read_deck(args.deck)
    for problem in [*deck.problems, *(p for s in deck.steps for p in s.problems)]:
        print(f"posviz.deck: {problem}", file=sys.stderr)
    if not deck.steps:
        print("posviz.deck: the deck has no slides; nothing written.", file=sys.stderr)
        return 1
    slides = slides_of(deck)
    for n, slide in enumerate(slides, start=1):
        for problem in slide.problems:
            print(f"posviz.deck: slide {n}: {problem}", file=sys.stderr)
    text = build(deck.title, slides, lang=deck.lang or "en")
    if args.output == "-":
        sys.stdout.buffer.write(text.encode("utf-8"))
    else:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"{args.output}: {len(deck.steps)} slides, {len(text.encode('utf-8')) / 1e6:.2f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
