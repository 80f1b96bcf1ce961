"""Figures and tokens as small 3-D solids, drawn in perspective into a synthetic photo.

Every figure is a list of planar :class:`Face` objects in world millimetres (the
frame of :mod:`scorer.render.scene`: ``X`` east, ``Y`` south, ``Z`` down, so a
standing meeple's head is at ``Z = -16``).  :func:`draw_solid` renders one solid
with a depth buffer in a small supersampled patch around it: per-pixel normals
blurred a little (rounded wooden edges), matte painted wood or metallic gold
shading, a cast shadow and a contact shadow, then composites the patch onto
the photo.  Drawing figures far to near gives correct overlaps between them.

Sizes follow the real components: a meeple is about 16 mm wide, 16 mm tall and
8 mm thick; a farmer lies on its back; a Gold Rush tent is a small wooden
A-frame; the Sheriff is a golden figure with a hat and a star; Goldmines gold
bars are small gold bricks stacked in crossed layers of two; ore tokens are
dark cardboard discs with light edges, stacked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .colours import PLAYER_RGB, SHERIFF_RGB
from .scene import Camera, soft_shadow, shadow_on_plane

#: Figure kinds :func:`figure_faces` builds.
KINDS = ("meeple", "farmer", "tent", "sheriff", "gold", "ore")

MEEPLE_THICK_MM = 8.0
TENT_SIZE_MM = (13.0, 12.0, 10.0)  # ridge length, base width, height
GOLD_BAR_MM = (11.0, 5.5, 3.6)  # length, width, height (bottom face; the top is smaller)
ORE_TOKEN_MM = (15.0, 2.2)  # diameter, thickness
#: Radius of the round base each solid stands on, mm (about half its width on
#: the table: a standing meeple is 16 x 8 mm there, a farmer 16 x 16, a tent
#: 13 x 12, a gold bar 11 x 5.5, an ore token 15 across).  Two solids on a
#: tile stand at least the sum of their radii apart: wood does not interpenetrate.
FOOTPRINT_MM = {"meeple": 7.0, "sheriff": 7.0, "farmer": 8.5, "tent": 7.0, "gold": 6.0,
                "ore": ORE_TOKEN_MM[0] / 2}


@dataclass
class Face:
    """A planar polygon of a solid.

    Attributes
    ----------
    verts : (N, 3) float64 ndarray
        Corners in world millimetres, in order around the polygon.
    normal : (3,) float64 ndarray
        Outward unit normal.
    rgb : (3,) float64 ndarray
        Albedo, RGB 0-1.
    material : str
        ``wood`` (painted, matte), ``gold`` (metallic) or ``card`` (cardboard).
    """

    verts: np.ndarray
    normal: np.ndarray
    rgb: np.ndarray
    material: str = "wood"


MATERIALS = ("wood", "gold", "card")


# --------------------------------------------------------------------------- outlines


def _chaikin(pts: np.ndarray, rounds: int) -> np.ndarray:
    for _ in range(rounds):
        nxt = np.roll(pts, -1, axis=0)
        pts = np.stack([0.75 * pts + 0.25 * nxt, 0.25 * pts + 0.75 * nxt], axis=1).reshape(-1, 2)
    return pts


def _mirror(right: list[tuple[float, float]]) -> np.ndarray:
    """A symmetric outline from its right half, listed from the top (u = 0) down to u = 0."""
    left = [(-u, v) for (u, v) in reversed(right[1:-1])]
    pts = np.array(right + left, dtype=np.float64)
    area = 0.5 * np.sum(pts[:, 0] * np.roll(pts[:, 1], -1) - np.roll(pts[:, 0], -1) * pts[:, 1])
    return pts if area > 0 else pts[::-1].copy()  # counter-clockwise in (u right, v up)


_BODY = [(3.4, 10.6), (5.6, 10.0), (7.3, 9.55), (7.95, 8.95), (7.8, 8.25), (7.0, 7.95), (5.2, 7.85),
         (3.6, 7.4), (3.5, 6.0), (4.3, 3.6), (5.3, 1.2), (5.7, 0.45), (5.3, 0.0), (2.3, 0.0), (1.9, 0.5),
         (1.3, 2.4), (0.5, 3.7), (0.0, 3.9)]


@lru_cache(maxsize=None)
def meeple_outline(hat: bool = False) -> np.ndarray:
    """The meeple's silhouette, ``(N, 2)`` mm, ``u`` across (-8..8), ``v`` up from the feet.

    Counter-clockwise.  With ``hat`` the head wears a wide-brimmed hat (the Sheriff).
    """
    if hat:
        head = [(0.0, 18.2), (1.7, 18.3), (2.5, 17.7), (2.7, 15.6), (4.8, 15.4), (5.4, 15.0), (4.8, 14.6),
                (2.8, 14.5), (2.9, 13.2), (2.4, 11.5)]
    else:
        head = [(0.0, 16.0)] + [(2.9 * math.cos(math.radians(a)), 13.1 + 2.9 * math.sin(math.radians(a)))
                                for a in (65, 40, 15, -10, -35)]
    return _chaikin(_mirror(head + _BODY), 1)


def _star(cx: float, cy: float, r: float) -> np.ndarray:
    """A five-pointed star, ``(10, 2)``, counter-clockwise in (u right, v up)."""
    pts = []
    for i in range(10):
        a = math.pi / 2 + i * math.pi / 5
        rr = r if i % 2 == 0 else r * 0.42
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return np.array(pts)


# --------------------------------------------------------------------------- solids


def _unit(v: np.ndarray) -> np.ndarray:
    return v / (np.linalg.norm(v) + 1e-12)


def extrude(outline: np.ndarray, origin: np.ndarray, u_axis: np.ndarray, v_axis: np.ndarray,
            w_axis: np.ndarray, thickness: float, rgb: np.ndarray, material: str = "wood",
            decals: tuple = ()) -> list[Face]:
    """An outline ``(N, 2)`` (counter-clockwise) extruded ``thickness`` mm along ``w_axis``.

    World point of ``(u, v, w)`` = ``origin + u u_axis + v v_axis + w w_axis``,
    ``w`` from ``-thickness/2`` to ``+thickness/2``; the axes are orthonormal.
    ``decals`` are ``(outline, rgb, material)`` drawn 0.3 mm proud of both caps.
    """
    def world(uv: np.ndarray, w: float) -> np.ndarray:
        return origin + uv[:, :1] * u_axis + uv[:, 1:2] * v_axis + w * w_axis

    half = thickness / 2
    front, back = world(outline, half), world(outline, -half)
    faces = [Face(front, _unit(w_axis), rgb, material), Face(back[::-1].copy(), _unit(-w_axis), rgb, material)]
    n = len(outline)
    for i in range(n):
        j = (i + 1) % n
        du, dv = outline[j] - outline[i]
        nrm = _unit(dv * u_axis - du * v_axis)  # outward for a counter-clockwise outline
        quad = np.array([back[i], back[j], front[j], front[i]])
        faces.append(Face(quad, nrm, rgb, material))
    for shape, drgb, dmat in decals:
        faces.append(Face(world(shape, half + 0.3), _unit(w_axis), np.asarray(drgb, float), dmat))
        faces.append(Face(world(shape, -half - 0.3), _unit(-w_axis), np.asarray(drgb, float), dmat))
    return faces


def box(centre_bottom: np.ndarray, length: float, width: float, height: float, yaw: float,
        rgb: np.ndarray, material: str, taper: float = 1.0) -> list[Face]:
    """A (tapered) box standing on ``centre_bottom``; the top is ``taper`` times the bottom."""
    a = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    b = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
    up = np.array([0.0, 0.0, -1.0])
    corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    bottom = np.array([centre_bottom + sx * length / 2 * a + sy * width / 2 * b for sx, sy in corners])
    top = np.array([centre_bottom + height * up + taper * (sx * length / 2 * a + sy * width / 2 * b)
                    for sx, sy in corners])
    return _hull_faces(bottom, top, rgb, material)


def _hull_faces(bottom: np.ndarray, top: np.ndarray, rgb: np.ndarray, material: str,
                side_rgb: np.ndarray | None = None) -> list[Face]:
    """Faces of a convex prism-like solid between two matching rings of points."""
    centre = np.vstack([bottom, top]).mean(axis=0)
    faces = []

    def add(verts: np.ndarray, colour: np.ndarray) -> None:
        n = _unit(np.cross(verts[1] - verts[0], verts[2] - verts[0]))
        if np.dot(n, verts.mean(axis=0) - centre) < 0:
            n = -n
        faces.append(Face(verts, n, colour, material))

    add(top, rgb)
    add(bottom[::-1].copy(), rgb)
    m = len(bottom)
    for i in range(m):
        j = (i + 1) % m
        add(np.array([bottom[i], bottom[j], top[j], top[i]]), rgb if side_rgb is None else side_rgb)
    return faces


def cylinder(centre_bottom: np.ndarray, radius: float, height: float, rgb: np.ndarray, side_rgb: np.ndarray,
             material: str = "card", segments: int = 20) -> list[Face]:
    """A disc of ``radius`` and ``height`` (mm) lying on ``centre_bottom``."""
    ang = np.linspace(0, 2 * math.pi, segments, endpoint=False)
    ring = np.column_stack([np.cos(ang) * radius, np.sin(ang) * radius, np.zeros(segments)])
    bottom = centre_bottom + ring
    top = bottom + np.array([0.0, 0.0, -height])
    return _hull_faces(bottom, top, rgb, material, side_rgb)


def figure_faces(kind: str, colour: str | None, foot: np.ndarray, yaw: float, *, count: int = 1,
                 rng: np.random.Generator | None = None) -> list[Face]:
    """The solid of one figure or token stack standing on ``foot`` (world mm).

    Parameters
    ----------
    kind : str
        ``meeple`` (standing), ``farmer`` (lying on its back), ``tent``,
        ``sheriff``, ``gold`` (a stack of ``count`` Goldmines bars) or ``ore``
        (a stack of ``count`` ore tokens).
    colour : str or None
        Player colour (:data:`scorer.render.colours.PLAYER_RGB`) for meeples and tents.
    foot : (3,) float64
        Where the figure stands (centre of its base), mm.
    yaw : float
        Turn about the vertical, radians.
    count : int
        Tokens in a stack.
    rng : numpy.random.Generator, optional
        Untidiness of stacks.

    Returns
    -------
    list of Face
    """
    rng = rng if rng is not None else np.random.default_rng(0)
    foot = np.asarray(foot, dtype=np.float64)
    a = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    b = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
    up = np.array([0.0, 0.0, -1.0])
    if kind in ("meeple", "sheriff"):
        if kind == "sheriff":
            rgb = np.asarray(SHERIFF_RGB, float) / 255
            star = (_star(0.0, 8.4, 2.6), rgb * 0.55, "gold")
            return extrude(meeple_outline(True), foot, a, up, b, MEEPLE_THICK_MM, rgb, "gold", (star,))
        rgb = np.asarray(PLAYER_RGB[colour], float) / 255
        return extrude(meeple_outline(False), foot, a, up, b, MEEPLE_THICK_MM, rgb)
    if kind == "farmer":
        rgb = np.asarray(PLAYER_RGB[colour], float) / 255
        origin = foot - 8.0 * b + MEEPLE_THICK_MM / 2 * up
        return extrude(meeple_outline(False), origin, a, b, up, MEEPLE_THICK_MM, rgb)
    if kind == "tent":
        rgb = np.asarray(PLAYER_RGB[colour], float) / 255
        length, width, height = TENT_SIZE_MM
        tri = np.array([[width / 2, 0.0], [0.0, height], [-width / 2, 0.0]])[::-1].copy()
        tri = tri if _area(tri) > 0 else tri[::-1].copy()
        door = np.array([[1.6, 0.0], [0.0, 5.5], [-1.6, 0.0]])
        door = door if _area(door) > 0 else door[::-1].copy()
        return extrude(tri, foot, b, up, a, length, rgb, "wood", ((door, rgb * 0.35, "wood"),))
    if kind == "gold":
        rgb = np.asarray(SHERIFF_RGB, float) / 255
        length, width, height = GOLD_BAR_MM
        faces: list[Face] = []
        for i in range(max(count, 0)):
            layer, slot = divmod(i, 2)
            ly = yaw + (layer % 2) * math.pi / 2 + rng.normal(0, 0.08)
            across = np.array([-math.sin(ly), math.cos(ly), 0.0])
            offset = 0.0 if (i == count - 1 and slot == 0) else (slot - 0.5) * (width + 0.6)
            c = foot + offset * across + layer * height * up + np.append(rng.normal(0, 0.35, 2), 0.0)
            faces += box(c, length, width, height, ly, rgb, "gold", taper=0.8)
        return faces
    if kind == "ore":
        top = np.array([0.16, 0.145, 0.14])
        side = np.array([0.62, 0.58, 0.52])
        d, t = ORE_TOKEN_MM
        faces = []
        for i in range(max(count, 0)):
            c = foot + i * t * up + np.append(rng.normal(0, 0.6, 2), 0.0)
            faces += cylinder(c, d / 2, t, top * rng.uniform(0.9, 1.1), side, "card")
        return faces
    raise ValueError(f"unknown figure kind {kind!r}; expected one of {', '.join(KINDS)}")


def _area(pts: np.ndarray) -> float:
    return 0.5 * float(np.sum(pts[:, 0] * np.roll(pts[:, 1], -1) - np.roll(pts[:, 0], -1) * pts[:, 1]))


# --------------------------------------------------------------------------- drawing


def _shade(material: str, albedo: np.ndarray, n: np.ndarray, light: np.ndarray, view: np.ndarray,
           ao: np.ndarray) -> np.ndarray:
    """Per-pixel colour of one material: ``albedo`` (P, 3), normals ``n`` (P, 3) -> (P, 3)."""
    diff = np.clip(n @ light, 0, 1)[:, None]
    half = _unit(light + view)
    ndh = np.clip(n @ half, 0, 1)[:, None]
    if material == "gold":
        ndv = np.clip(n @ view, 0, 1)[:, None]
        refl = 2 * ndv * n - view
        env = 0.25 + 0.9 * np.clip(-refl[:, 2:3], 0, 1) ** 1.5
        spec_col = 0.55 * albedo + 0.45
        return albedo * (0.12 + 0.45 * diff + 0.55 * env) * ao + spec_col * 1.1 * ndh ** 28
    if material == "card":
        return albedo * (0.5 + 0.55 * diff) * ao + 0.05 * ndh ** 12
    return albedo * (0.42 + 0.62 * diff) * ao + 0.10 * ndh ** 20


def draw_solid(
    canvas: np.ndarray,
    cam: Camera,
    faces: list[Face],
    light: np.ndarray,
    *,
    ground_z: float,
    shadow: float,
    rng: np.random.Generator,
) -> None:
    """Render one solid onto the float32 RGB 0-1 ``canvas`` (in place), with its shadows.

    Parameters
    ----------
    canvas : (H, W, 3) float32 ndarray
        The pinhole picture so far (table, tiles, farther figures).
    cam : Camera
        Camera whose pixels are ``canvas`` pixels.
    faces : list of Face
    light : (3,) float64
        Unit vector towards the main light (its ``Z`` is negative: the light is above).
    ground_z : float
        Height of the surface the solid stands on (``Z``, mm): 0 on tiles.
    shadow : float
        Darkness of the cast shadow, 0-1.
    rng : numpy.random.Generator
        Wood texture.
    """
    if not faces:
        return
    H, W = canvas.shape[:2]
    verts = np.vstack([f.verts for f in faces])
    if np.any(cam.depth(verts) <= 1.0):
        return
    px = cam.project(verts)
    base = verts[verts[:, 2] > ground_z - 0.8]
    shadow_px = [cam.project(shadow_on_plane(f.verts, light, ground_z)) for f in faces]
    everything = np.vstack([px] + shadow_px)
    centre = verts.mean(axis=0)
    px_per_mm = cam.K[0, 0] / max(cam.depth(centre[None])[0], 1.0)
    pad = int(math.ceil(3 * px_per_mm)) + 3
    lo = np.floor(everything.min(axis=0)).astype(int) - pad
    hi = np.ceil(everything.max(axis=0)).astype(int) + pad
    lo = np.maximum(lo, 0)
    hi = np.minimum(hi, [W, H])
    if (hi - lo <= 1).any():
        return
    # Shadows on the ground: cast (sharp-ish) and contact (soft, under the base).
    soft_shadow(canvas, shadow_px, sigma_px=max(0.4, 0.9 * px_per_mm), strength=0.55 * shadow)
    if len(base) >= 3:
        soft_shadow(canvas, [cv2.convexHull(cam.project(base).astype(np.float32)).reshape(-1, 2)],
                    sigma_px=max(0.5, 1.6 * px_per_mm), strength=0.45 * shadow)

    # The solid itself, in a supersampled patch around it.
    blo = np.maximum(np.floor(px.min(axis=0)).astype(int) - 2, 0)
    bhi = np.minimum(np.ceil(px.max(axis=0)).astype(int) + 3, [W, H])
    if (bhi - blo <= 1).any():
        return
    size = bhi - blo
    ss = 4 if size.max() < 48 else 3 if size.max() < 160 else 2
    pw, ph = int(size[0] * ss), int(size[1] * ss)
    zbuf = np.zeros((ph, pw), np.float64)
    ids = np.full((ph, pw), -1, np.int32)
    f = cam.K[0, 0]
    cx, cy = cam.K[0, 2], cam.K[1, 2]
    # Back faces away; the rest into a depth buffer (1/z is affine in the pixel for a plane).
    counts = np.array([len(fc.verts) for fc in faces])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    n_cam_all = np.array([fc.normal for fc in faces]) @ cam.R.T
    first_cam = cam.to_camera(verts[starts])
    c_all = np.einsum("ij,ij->i", n_cam_all, first_cam)
    fpx_all = (px - blo + 0.5) * ss - 0.5
    for idx in np.flatnonzero(c_all < -1e-9):
        n_cam, c = n_cam_all[idx], float(c_all[idx])
        fpx = fpx_all[starts[idx]:starts[idx] + counts[idx]]
        flo = np.maximum(np.floor(fpx.min(axis=0)).astype(int), 0)
        fhi = np.minimum(np.ceil(fpx.max(axis=0)).astype(int) + 2, [pw, ph])
        if (fhi <= flo).any():
            continue
        mask = np.zeros((fhi[1] - flo[1], fhi[0] - flo[0]), np.uint8)
        cv2.fillPoly(mask, [np.round((fpx - flo) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        u = blo[0] + (np.arange(flo[0], fhi[0]) + 0.5) / ss - 0.5
        v = blo[1] + (np.arange(flo[1], fhi[1]) + 0.5) / ss - 0.5
        inv_z = ((n_cam[0] / (f * c)) * (u[None, :] - cx) + (n_cam[1] / (f * c)) * (v[:, None] - cy)
                 + n_cam[2] / c)
        zl = zbuf[flo[1]:fhi[1], flo[0]:fhi[0]]
        il = ids[flo[1]:fhi[1], flo[0]:fhi[0]]
        upd = (mask > 0) & (inv_z > zl)
        zl[upd] = inv_z[upd]
        il[upd] = idx
    cover = ids >= 0
    if not cover.any():
        return
    normals = np.array([fc.normal for fc in faces])
    albedo = np.array([fc.rgb for fc in faces])
    mats = np.array([MATERIALS.index(fc.material) for fc in faces])
    safe = np.where(cover, ids, 0)
    nrm = normals[safe] * cover[..., None]
    # Rounded edges: blur the normals (normalised convolution inside the figure).
    sigma = max(0.6, 0.7 * px_per_mm * ss)
    cov_f = cover.astype(np.float32)
    nb = cv2.GaussianBlur(nrm.astype(np.float32), (0, 0), sigma)
    cb = cv2.GaussianBlur(cov_f, (0, 0), sigma)
    nb = nb / np.maximum(cb, 1e-6)[..., None]
    nb /= np.linalg.norm(nb, axis=2, keepdims=True) + 1e-9
    # Height above the ground for ambient occlusion near the foot.
    jj = np.arange(pw)
    ii = np.arange(ph)
    u = blo[0] + (jj + 0.5) / ss - 0.5
    v = blo[1] + (ii + 0.5) / ss - 0.5
    z = 1.0 / np.maximum(zbuf, 1e-9)
    world_z = cam.C[2] + z * ((cam.R.T[2, 0] * (u[None, :] - cx) + cam.R.T[2, 1] * (v[:, None] - cy)) / f
                              + cam.R.T[2, 2])
    height = np.clip(ground_z - world_z, 0, None)
    ao = 1 - 0.35 * np.exp(-height / 2.5)
    # Wood grain: a faint streaky texture in the albedo.
    tex = rng.normal(0, 1, (max(2, ph // 6), max(2, pw // 12))).astype(np.float32)
    tex = cv2.resize(tex, (pw, ph), interpolation=cv2.INTER_CUBIC)
    alb = albedo[safe] * (1 + 0.035 * tex[..., None])
    view = _unit(cam.C - centre)
    out = np.zeros((ph, pw, 3), np.float32)
    mat_px = mats[safe]
    for m_idx, m_name in enumerate(MATERIALS):
        sel = cover & (mat_px == m_idx)
        if sel.any():
            out[sel] = _shade(m_name, alb[sel], nb[sel], light, view, ao[sel][:, None])
    out = np.clip(out, 0, 1.2)
    premult = np.dstack([out * cov_f[..., None], cov_f])
    small = cv2.resize(premult, (int(size[0]), int(size[1])), interpolation=cv2.INTER_AREA)
    roi = canvas[blo[1]:bhi[1], blo[0]:bhi[0]]
    a = small[..., 3:4]
    roi[:] = roi * (1 - a) + small[..., :3]
