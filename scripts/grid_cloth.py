"""Which line segments the grid search sets aside as a table cloth's (development aid).

Usage::

    .venv/bin/python scripts/grid_cloth.py PHOTO.jpg OUT.png [--max-side 2048]

Runs the first steps of :func:`scorer.vision.grid.find_grid` on the photo (working
copy, line segments, the periodic windows of :meth:`_Evidence.cloth_windows`,
:func:`_cloth_segments`) and draws, on the grey working copy: the segments set
aside as a repeating pattern (red), the segments kept (yellow), and from the
centre of every periodic window its periods (orange: finest scale, magenta:
coarser).  Prints the counts.
"""

from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np

from scorer.fileio import write_atomic
from scorer.vision import grid as G
from scorer.vision.photo import load_photo


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("photo")
    ap.add_argument("out")
    ap.add_argument("--max-side", type=int, default=2048)
    args = ap.parse_args(argv)
    rgb = load_photo(args.photo, max_side=args.max_side)
    cfg = G.GridConfig()
    h, w = rgb.shape[:2]
    scale = min(1.0, cfg.work_side / max(h, w))
    small = cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else rgb
    gray = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
    segs = G._segments(gray, cfg)
    evidence = G._Evidence(gray, cfg)
    cloth = G._cloth_segments(segs, evidence, cfg)
    windows = evidence.cloth_windows()
    print(f"{len(segs)} segments, {int(cloth.sum())} set aside as a repeating pattern; periodic windows per scale: "
          f"{[len(c) for c, _, _ in windows]}")
    img = cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
    for (x1, y1, x2, y2), c in zip(segs, cloth):
        cv2.line(img, (round(x1), round(y1)), (round(x2), round(y2)), (0, 0, 255) if c else (0, 255, 255), 2)
    for n, (centres, lags, _) in enumerate(windows):
        colour = (0, 128, 255) if n == 0 else (255, 0, 255)
        for (cx, cy), pair in zip(centres, lags):
            for t in pair:
                if np.isfinite(t).all():
                    cv2.line(img, (round(cx), round(cy)), (round(cx + t[0]), round(cy + t[1])), colour, 2)
    ok, png = cv2.imencode(".png", img)
    if not ok:
        print("could not encode the picture", file=sys.stderr)
        return 1
    write_atomic(args.out, png.tobytes())
    return 0


if __name__ == "__main__":
    sys.exit(main())
