"""Figure colours and the one place where OpenCV's BGR order is converted.

Every image in the project is RGB ``uint8`` in row/column order.  OpenCV reads
and writes BGR; :func:`imread_rgb` and :func:`encode_image` are the only two
functions that convert, so no other module touches the channel order.

The player colours are the seven figure colours of ``board-format.md``
(``players``); the Sheriff is the golden figure of The Sheriff (``rules.md``
section 7).  The values are the printed plastic colours as they look on a
neutral photo, chosen to stay far apart from each other and from the tile
colours of :data:`scorer.render.tileart.PALETTE`.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ..errors import ScorerError

RGB = tuple[int, int, int]

#: Player colour name -> figure colour, RGB 0-255.
PLAYER_RGB: dict[str, RGB] = {
    "red": (206, 32, 36),
    "blue": (30, 78, 200),
    "green": (28, 140, 56),
    "yellow": (246, 206, 24),
    "black": (28, 28, 30),
    "grey": (150, 150, 154),
    "pink": (240, 120, 182),
}

#: The Sheriff figure (golden), RGB 0-255.
SHERIFF_RGB: RGB = (214, 172, 48)

#: Every figure colour: the players plus ``"sheriff"``.
FIGURE_RGB: dict[str, RGB] = {**PLAYER_RGB, "sheriff": SHERIFF_RGB}


def outline_rgb(colour: RGB) -> RGB:
    """The outline drawn around a figure of ``colour``: dark, or light on dark figures.

    Parameters
    ----------
    colour : (int, int, int)
        Figure colour, RGB 0-255.

    Returns
    -------
    (int, int, int)
        RGB 0-255.
    """
    luma = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]
    return (205, 205, 205) if luma < 60 else (24, 22, 20)


def imread_rgb(path: str | Path) -> np.ndarray:
    """Read an image file as RGB.

    Parameters
    ----------
    path : str or Path
        PNG, JPEG or any format OpenCV reads.

    Returns
    -------
    (H, W, 3) uint8 ndarray
        RGB.

    Raises
    ------
    ScorerError
        The file is missing or not an image.
    """
    data = np.fromfile(str(path), dtype=np.uint8) if Path(path).is_file() else None
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data is not None and data.size else None
    if img is None:
        raise ScorerError(f"cannot read image {str(path)!r}: missing or not an image file")
    return bgr_to_rgb(img)


def bgr_to_rgb(bgr: np.ndarray) -> np.ndarray:
    """OpenCV's BGR order to the project's RGB (the one conversion point)."""
    return np.ascontiguousarray(bgr[..., ::-1])


def rgb_to_bgr(rgb: np.ndarray) -> np.ndarray:
    """The project's RGB to OpenCV's BGR, for OpenCV's writers."""
    return np.ascontiguousarray(rgb[..., ::-1])


def encode_image(rgb: np.ndarray, ext: str = ".png", *, quality: int | None = None) -> bytes:
    """Encode an RGB picture as file bytes (PNG by default).

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        RGB picture.
    ext : str
        File extension telling the format: ``.png``, ``.jpg``...
    quality : int, optional
        JPEG quality 1-100 (default OpenCV's 95).

    Returns
    -------
    bytes
        The encoded file, ready for :func:`scorer.fileio.write_atomic`.

    Raises
    ------
    ScorerError
        The picture is not (H, W, 3) uint8 or the format is unknown.
    """
    if not isinstance(rgb, np.ndarray) or rgb.dtype != np.uint8 or rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ScorerError("image to encode: expected an (H, W, 3) uint8 RGB array")
    try:
        params = [cv2.IMWRITE_JPEG_QUALITY, int(quality)] if quality is not None else []
        ok, buf = cv2.imencode(ext, rgb_to_bgr(rgb), params)
    except cv2.error:
        ok = False
    if not ok:
        raise ScorerError(f"cannot encode an image as {ext!r}; use .png or .jpg")
    return buf.tobytes()
