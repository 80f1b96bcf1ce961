"""Figure colours read in a light-corrected colour space, matched to the player colours.

The figure stage (:mod:`scorer.vision.figures`) divides the photo by a smooth
per-channel gain estimated from the tiles themselves (photo / expected tile
art), so a figure's colour arrives here as its *albedo times shading*: the
same red in a warm lamp, in the shadow of a hand or next to a window.  What
is left to tell colours apart:

* **chromaticity**, as log-ratios of the channels (``log((c + eps) / (g + eps))``
  for red and blue against green), which shading does not change;
* **brightness**, only to tell black from grey and the Sheriff's gold from a
  yellow wooden figure, within the range of brightness that shading allows
  for each material (:data:`SHADING`).

A figure's distance to a colour prototype (:data:`PROTOTYPES`) is the length of
the log-RGB difference after the best brightness scale within that range.

The colours of one photo are then read together (:func:`assign_colours`):
every figure first takes its nearest prototype among the allowed colours
(``players`` when given), then each colour's centre is re-estimated from the
figures of this very photo and every figure is compared with those centres as
well as with the prototypes, a few rounds (a k-means anchored on the
prototypes), so that a colour cast the light correction left behind moves
all figures of one colour together instead of flipping some of them.

The Sheriff (``rules.md`` section 7) is told from a yellow figure by
:func:`sheriff_score`: gold is darker and less saturated than yellow wood,
with whitish metallic highlights.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..board import COLOURS
from ..errors import ScorerError
from ..render.colours import PLAYER_RGB, SHERIFF_RGB

#: Added to each channel (0-255) before taking logs: keeps dark colours' noise out of their chromaticity.
EPS = 12.0

#: Colour prototypes, RGB 0-255: the seven player colours (the figures' paint),
#: the Sheriff's gold (also the Goldmines gold bars), the pale gold of gold
#: seen in a highlight, and the dark top of a face-down ore token.
PROTOTYPES: dict[str, tuple[float, float, float]] = {
    **{c: tuple(float(v) for v in PLAYER_RGB[c]) for c in COLOURS},
    "gold": tuple(float(v) for v in SHERIFF_RGB),
    "gold_light": (236.0, 222.0, 128.0),
    "ore": (41.0, 37.0, 36.0),
}

#: Brightness scales a colour may show (shading of painted wood: 0.42-1.04 of the
#: albedo plus highlights; black wood reads brighter than its albedo; gold spans
#: dark sides to bright reflections).
SHADING: dict[str, tuple[float, float]] = {
    **{c: (0.40, 1.25) for c in COLOURS},
    "black": (0.60, 2.10),
    "grey": (0.42, 1.20),
    "gold": (0.30, 1.35),
    "gold_light": (0.60, 1.15),
    "ore": (0.55, 1.60),
}

#: Classes used to split a blob of touching figures into parts: every player
#: colour, and gold (the Sheriff, gold bars).
SEGMENT_CLASSES: tuple[str, ...] = COLOURS + ("gold", "gold_light")


def log_rgb(rgb: np.ndarray) -> np.ndarray:
    """``log(rgb + EPS)`` of ``(N, 3)`` colours 0-255, float64."""
    return np.log(np.asarray(rgb, dtype=np.float64).reshape(-1, 3) + EPS)


def distances(rgb: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Shading-tolerant distances of colours to prototypes.

    Parameters
    ----------
    rgb : (N, 3) array
        Light-corrected colours, 0-255.
    names : sequence of str
        Keys of :data:`PROTOTYPES`.

    Returns
    -------
    (N, K) float64 ndarray
        For each colour and prototype ``p``: ``|log(x + EPS) - log(s p + EPS)|``
        with ``s`` the brightness ratio clipped to the prototype's
        :data:`SHADING` range.
    """
    x = np.asarray(rgb, dtype=np.float64).reshape(-1, 3)
    lx = np.log(x + EPS)
    # Sums over the three channels written out: numpy's reductions over a last axis of three
    # cost more than the arithmetic (the same numbers: the same additions in the same order).
    y = (x[:, 0] + x[:, 1] + x[:, 2]) / 3.0
    out = np.empty((len(x), len(names)))
    for k, name in enumerate(names):
        p = np.asarray(PROTOTYPES[name], dtype=np.float64)
        lo, hi = SHADING[name]
        s = np.clip(y / p.mean(), lo, hi)
        d = lx - np.log(s[:, None] * p[None, :] + EPS)
        d *= d
        out[:, k] = np.sqrt(d[:, 0] + d[:, 1] + d[:, 2])
    return out


#: Colours read mixed with the art beneath (:func:`mixed_distances`): the chromatic player colours.  A
#: neutral colour (black, grey, the ore tokens' dark grey) or gold mixed with the art is the art
#: darkened, paled or lit: what shading and highlights do to the art itself.
MIXED: frozenset[str] = frozenset({"red", "blue", "green", "yellow", "pink"})


def mixed_distances(rgb: np.ndarray, background: np.ndarray, names: Sequence[str], *, min_alpha: float = 1.0,
                    steps: int = 5, alpha_cost: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Distances of colours to prototypes where the art under a figure may be mixed into its colour.

    A small or thin figure (a farmer lying down, a blurred photo) has few
    pixels of its own colour: the lens and the shrinking to the top-down
    picture mix the art around it into most of them, so a blue farmer on a
    green field reads teal.  Each colour ``x`` is compared with
    ``alpha * s * p + (1 - alpha) * b`` for every prototype ``p``, the art's
    colour ``b`` under the figure, the figure's share ``alpha`` in ``steps``
    values from 1 down to ``min_alpha`` and the brightness scale ``s`` that
    matches the mean brightness (clipped to the prototype's :data:`SHADING`
    range); a share below 1 costs ``alpha_cost * (1 - alpha)``.  Only the
    colours of :data:`MIXED` are read mixed; the others as :func:`distances`.

    Parameters
    ----------
    rgb, background : (N, 3) array
        Light-corrected colours of the figures and of the art beneath them, 0-255.
    names : sequence of str
        Keys of :data:`PROTOTYPES`.
    min_alpha : float
        Least share of the figure's own colour (1: no mixing, as :func:`distances`).

    Returns
    -------
    d : (N, K) float64 ndarray
        The least log-RGB distance (plus the share's cost) per colour and prototype.
    alpha : (N, K) float64 ndarray
        The share of the figure's colour at that distance.
    """
    x = np.asarray(rgb, dtype=np.float64).reshape(-1, 3)
    b = np.asarray(background, dtype=np.float64).reshape(-1, 3)
    p = np.array([PROTOTYPES[n] for n in names], dtype=np.float64)  # (K, 3)
    lo, hi = np.array([SHADING[n] for n in names], dtype=np.float64).T  # (K,)
    a = np.linspace(1.0, min(1.0, max(min_alpha, 0.05)), max(1, steps))[:, None, None]  # (A, 1, 1)
    mixed = np.array([n in MIXED for n in names])
    # (A, N, K): the brightness scale, the mixed colour and its distance for every share.
    s = np.clip((x.mean(axis=1)[None, :, None] - (1.0 - a) * b.mean(axis=1)[None, :, None])
                / (a * p.mean(axis=1)[None, None, :]), lo, hi)
    m = a[..., None] * s[..., None] * p[None, None] + (1.0 - a[..., None]) * b[None, :, None, :]
    e = np.log(x + EPS)[None, :, None, :] - np.log(m + EPS)
    d = np.sqrt((e * e).sum(axis=-1)) + alpha_cost * (1.0 - a)
    d[1:, :, ~mixed] = np.inf  # the colours not read mixed: share 1 only
    best = np.argmin(d, axis=0)  # (N, K), the first (largest share) of equals
    return np.take_along_axis(d, best[None], axis=0)[0], a[:, 0, 0][best]


def unmixed(rgb: np.ndarray, background: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """The figure's own colour ``(x - (1 - alpha) b) / alpha`` (clipped to 0-255) of colours ``(N, 3)``
    read with the art ``b`` mixed in at shares ``alpha`` ``(N,)`` (:func:`mixed_distances`)."""
    x = np.asarray(rgb, dtype=np.float64).reshape(-1, 3)
    b = np.asarray(background, dtype=np.float64).reshape(-1, 3)
    a = np.asarray(alpha, dtype=np.float64).reshape(-1, 1)
    return np.clip((x - (1.0 - a) * b) / a, 0.0, 255.0)


def segment_labels(rgb: np.ndarray) -> np.ndarray:
    """Nearest segmentation class (index into :data:`SEGMENT_CLASSES`) of each colour ``(N, 3)``.

    The two golds share one class (the index of ``gold``).
    """
    d = distances(rgb, SEGMENT_CLASSES)
    lab = np.argmin(d, axis=1)
    lab[lab == SEGMENT_CLASSES.index("gold_light")] = SEGMENT_CLASSES.index("gold")
    return lab


def sheriff_score(rgb: np.ndarray) -> np.ndarray:
    """How much more a colour looks like the Sheriff's gold than like yellow wood.

    Parameters
    ----------
    rgb : (N, 3) array
        Median light-corrected colours of figures, 0-255.

    Returns
    -------
    (N,) float64 ndarray
        ``d(yellow) - d(gold)``: positive for gold.
    """
    d = distances(rgb, ("yellow", "gold", "gold_light"))
    return d[:, 0] - np.minimum(d[:, 1], d[:, 2])


@dataclass
class ColourChoice:
    """The colour read for one figure.

    Attributes
    ----------
    colour : str
        A player colour.
    confidence : float
        Probability (0-1) of ``colour`` against the other allowed colours.
    alternatives : list of dict
        ``{"player": colour, "confidence": c}``, runners-up, best first.
    distance : float
        Distance to the chosen colour (its prototype or this photo's centre).
    """

    colour: str
    confidence: float
    alternatives: list[dict] = field(default_factory=list)
    distance: float = 0.0


#: Cowboy colours of Carcassonne: Gold Rush (``rules.md`` section 6: yellow, red, green, blue, black).
GOLDRUSH_COLOURS: tuple[str, ...] = ("yellow", "red", "green", "blue", "black")


def allowed_colours(players: Sequence[str] | None, game: str = "carcassonne") -> list[str]:
    """The colours figures may have: ``players`` when given (checked), else the game's colours.

    Parameters
    ----------
    players : sequence of str or None
        The players' colours (``board-format.md``, ``players``).
    game : {"carcassonne", "goldrush"}
        Without ``players``: all seven colours (base game), or the five Gold Rush colours.

    Raises
    ------
    ScorerError
        An unknown colour in ``players``.
    """
    if not players:
        return list(GOLDRUSH_COLOURS) if game == "goldrush" else list(COLOURS)
    out = []
    for p in players:
        if p not in COLOURS:
            raise ScorerError(f"players: unknown colour {p!r}; expected some of {', '.join(COLOURS)}")
        if p not in out:
            out.append(p)
    return out


def assign_colours(rgb: np.ndarray, allowed: Sequence[str], *, temperature: float = 0.12,
                   rounds: int = 4, photo_weight: float = 0.5) -> list[ColourChoice]:
    """Read the colours of all figures of one photo together.

    Parameters
    ----------
    rgb : (N, 3) array
        Median light-corrected colour of each figure, 0-255.
    allowed : sequence of str
        Colours the figures may have (the players, or all seven).
    temperature : float
        Distance units per nat when turning distances into confidences.
    rounds : int
        Rounds of re-estimating this photo's colour centres.
    photo_weight : float
        Weight (0-1) of the distance to this photo's centre of a colour against
        the distance to its prototype, for colours worn by two figures or more.

    Returns
    -------
    list of ColourChoice
        One per figure, in order.
    """
    allowed = list(allowed)
    x = np.asarray(rgb, dtype=np.float64).reshape(-1, 3)
    if len(x) == 0:
        return []
    if not allowed:
        raise ScorerError("no colours allowed for the figures; give at least one player colour")
    proto = distances(x, allowed)
    lx = log_rgb(x)
    d = proto.copy()
    labels = np.argmin(d, axis=1)
    for _ in range(max(0, rounds)):
        d = proto.copy()
        for k in range(len(allowed)):
            members = labels == k
            if members.sum() >= 2:
                centre = np.median(lx[members], axis=0)
                # Compare chromaticity and brightness with the photo's own centre
                # (half the brightness difference is forgiven: shading varies
                # from figure to figure).
                diff = lx - centre
                diff -= 0.5 * diff.mean(axis=1, keepdims=True)
                dc = np.sqrt((diff * diff).sum(axis=1))
                d[:, k] = (1 - photo_weight) * proto[:, k] + photo_weight * np.minimum(dc, proto[:, k] + 0.3)
        new = np.argmin(d, axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
    out = []
    for i in range(len(x)):
        z = -d[i] / max(temperature, 1e-6)
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        order = np.argsort(-p)
        best = int(order[0])
        alts = [{"player": allowed[int(k)], "confidence": round(float(p[k]), 3)} for k in order[1:3] if p[k] >= 0.01]
        out.append(ColourChoice(allowed[best], float(p[best]), alts, float(d[i, best])))
    return out
