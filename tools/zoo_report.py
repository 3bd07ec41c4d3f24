"""Print the zoo's counts: every model type of the pinned transformers whose text config carries RoPE.

``python -m tools.zoo_report`` reads each with posviz and with transformers itself (see
:mod:`tools.zoo`) and prints how many are equal, different, refused (a ValueError, with its
message) and crashed (any other exception), how many read the same once transformers has
re-saved them (``to_json_string(use_diff=True)``), then every one that is not equal.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from tools.zoo import compare, round_trips, zoo_types


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.zoo_report", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("types", nargs="*", help="only these model types")
    args = parser.parse_args(argv)
    results = {t: compare(t) for t in (args.types or zoo_types())}
    counts = Counter(verdict for verdict, _ in results.values())
    same = [t for t in results if round_trips(t)]
    if args.json:
        print(json.dumps({"counts": counts, "results": results, "round_trips": len(same)}, indent=1))
        return
    total = len(results)
    for verdict in ("equal", "different", "refused", "crash", "no truth"):
        print(f"{verdict:10} {counts[verdict]:4}  ({100 * counts[verdict] / max(total, 1):.1f} %)")
    print(f"{'total':10} {total:4}")
    print(f"re-saved by transformers, read the same: {len(same)} of {total}")
    for model_type, (verdict, detail) in results.items():
        if verdict != "equal":
            print(f"  {verdict:9} {model_type}: {detail[:200]}")


if __name__ == "__main__":
    main()
