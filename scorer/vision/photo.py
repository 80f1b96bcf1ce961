"""Photo loading: one image convention inside the pipeline, RGB uint8 (rows, cols, 3).

Reads JPEG, PNG, WebP, BMP, TIFF and the HEIC/HEIF files phones save by default
(through pillow-heif), applies the EXIF orientation so that the picture stands
as the phone showed it, refuses decompression bombs before decoding, and
downscales very large photos while decoding (JPEG draft mode) to the working
size of the pipeline.  Webcam frames come from :func:`grab_frame`.

OpenCV's BGR order is converted in one place only:
:func:`scorer.render.colours.bgr_to_rgb` / :func:`~scorer.render.colours.rgb_to_bgr`.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from ..errors import PhotoError
from ..render.colours import bgr_to_rgb

log = logging.getLogger(__name__)

#: Photos with more pixels than this are refused before decoding (a 12 MP phone
#: photo has 12e6; 100 MP covers every current phone).
MAX_PIXELS = 120_000_000
#: Photos smaller than this on the short side cannot show tiles well enough.
MIN_SIDE = 320
#: EXIF tag of the orientation (1: as stored).
_ORIENTATION = 0x0112

_heif_registered = False


def _register_heif() -> None:
    global _heif_registered
    if _heif_registered:
        return
    try:
        import pillow_heif

        pillow_heif.register_heif_opener()
    except ImportError:  # pragma: no cover - pillow-heif is a dependency
        log.warning("pillow-heif is not installed: HEIC photos cannot be read")
    _heif_registered = True


def load_photo(path: str | Path, *, max_side: int | None = None) -> np.ndarray:
    """Read a photo as RGB uint8, EXIF orientation applied, optionally downscaled.

    Parameters
    ----------
    path : str or Path
        JPEG, PNG, HEIC/HEIF, WebP, BMP or TIFF file.
    max_side : int, optional
        Longest side in pixels of the returned image; larger photos are
        downscaled (JPEG: while decoding, which is fast and saves memory).

    Returns
    -------
    (H, W, 3) uint8 ndarray
        RGB image, rows top to bottom as the phone showed it.

    Raises
    ------
    PhotoError
        File missing or unreadable, not an image, more than :data:`MAX_PIXELS`
        pixels (decompression bomb), or smaller than :data:`MIN_SIDE` pixels.
    """
    from PIL import Image, ImageOps, UnidentifiedImageError

    _register_heif()
    path = Path(path)
    if not path.is_file():
        raise PhotoError(f"photo {str(path)!r} does not exist or is not a file")
    old_limit = Image.MAX_IMAGE_PIXELS
    Image.MAX_IMAGE_PIXELS = None  # checked below, with our own message
    try:
        try:
            img = Image.open(path)
        except UnidentifiedImageError:
            raise PhotoError(f"{path}: not an image (expected a JPEG, PNG or HEIC photo)") from None
        except OSError as exc:
            raise PhotoError(f"{path}: cannot read the photo: {exc}") from None
        w, h = img.size
        if w * h > MAX_PIXELS:
            raise PhotoError(
                f"{path}: {w}x{h} pixels is more than {MAX_PIXELS // 1_000_000} megapixels; "
                "refusing to decode it (use a normal phone photo)"
            )
        if max_side and max(w, h) > max_side and img.format == "JPEG":
            scale = max_side / max(w, h)
            img.draft("RGB", (max(1, int(w * scale)), max(1, int(h * scale))))
        fast = _decode_jpeg(path, img, (w, h)) if _FAST2 else None
        if fast is not None:
            rgb = fast
        try:
            # Only a photo that needs turning pays for exif_transpose's copy, only a
            # non-RGB one for convert's (a 12 MP photo: tens of milliseconds each).
            if fast is None and img.getexif().get(_ORIENTATION, 1) not in (0, 1):
                img = ImageOps.exif_transpose(img)
            if fast is None and img.mode != "RGB":
                img = img.convert("RGB")
        except (OSError, ValueError) as exc:
            raise PhotoError(f"{path}: the image data is damaged ({exc}); take or copy the photo again") from None
        if fast is None:
            rgb = np.asarray(img, dtype=np.uint8)
    finally:
        Image.MAX_IMAGE_PIXELS = old_limit
    if min(rgb.shape[:2]) < MIN_SIDE:
        raise PhotoError(
            f"{path}: {rgb.shape[1]}x{rgb.shape[0]} pixels is too small; "
            f"use a photo at least {MIN_SIDE} pixels on the short side"
        )
    if max_side and max(rgb.shape[:2]) > max_side:
        rgb = downscale(rgb, max_side)
    return np.ascontiguousarray(rgb)


#: JPEG photos decoded by OpenCV straight to RGB (the same libjpeg decoding, at the same
#: draft scale, the same pixels; about half the time of Pillow's); False: Pillow only.
_FAST2 = True
#: ``cv2.imdecode`` flags of a JPEG decoded at 1/k scale.
_REDUCED = {1: 0, 2: 16, 4: 32, 8: 64}


def _decode_jpeg(path: Path, img, stored: tuple[int, int]) -> np.ndarray | None:
    """``img`` (an opened Pillow JPEG of ``stored`` (width, height) pixels, draft scale set)
    decoded by OpenCV: (H, W, 3) uint8 RGB.

    ``None`` (Pillow decodes it then) unless the photo is a colour JPEG that
    needs no turning and OpenCV gives exactly the size Pillow's draft would.
    """
    import cv2

    if img.format != "JPEG" or img.mode != "RGB" or not hasattr(cv2, "IMREAD_COLOR_RGB"):
        return None
    try:
        if img.getexif().get(_ORIENTATION, 1) not in (0, 1):
            return None
        w0, h0 = stored
        w, h = img.size
        k = max(1, round(w0 / max(w, 1)))
        if k not in _REDUCED or (w0 + k - 1) // k != w or (h0 + k - 1) // k != h:
            return None
        flags = cv2.IMREAD_COLOR_RGB | cv2.IMREAD_IGNORE_ORIENTATION | _REDUCED[k]
        rgb = cv2.imdecode(np.fromfile(path, dtype=np.uint8), flags)
    except (OSError, ValueError, cv2.error):
        return None
    if rgb is None or rgb.shape != (h, w, 3) or rgb.dtype != np.uint8:
        return None
    return rgb


def downscale(rgb: np.ndarray, max_side: int) -> np.ndarray:
    """Shrink ``rgb`` so its longest side is ``max_side`` pixels (area averaging)."""
    import cv2

    h, w = rgb.shape[:2]
    scale = max_side / max(h, w)
    if scale >= 1:
        return rgb
    return cv2.resize(rgb, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)


def grab_frame(camera: int = 0, *, warmup: int = 5) -> np.ndarray:
    """Take one frame from webcam number ``camera`` as RGB uint8.

    A few frames are read first so that the camera's exposure settles.

    Raises
    ------
    PhotoError
        The camera cannot be opened or gives no frame.
    """
    import cv2

    cap = cv2.VideoCapture(camera)
    try:
        if not cap.isOpened():
            raise PhotoError(f"camera {camera} cannot be opened; check --camera N and that no other program uses it")
        frame = None
        for _ in range(max(1, warmup)):
            ok, got = cap.read()
            if ok:
                frame = got
        if frame is None:
            raise PhotoError(f"camera {camera} gave no picture")
    finally:
        cap.release()
    return bgr_to_rgb(frame)
