"""End-of-game tally of the board game Goldland.

Only the final count is scored here; the game itself (walking an explorer over
terrain tiles with a 12-slot backpack) is played on the table.  The rules come
from the user's rule document, seed ``003`` (section "KONEC HRY A HODNOCENÍ",
end of game and scoring), digested in section 8 of ``docs/rules.md``:

* each gold piece counts 1, each treasure 3, the amulet 3 (a player holds at
  most one), each adventure token its printed value (2 to 5);
* the player with the most gold wins; equal totals share a place.

All amounts are in gold pieces.  Two input formats are read by
:func:`load_tally`:

JSON::

    {"format": "goldland-tally/1",
     "token_values": {"bandits": 4, "puma": 3},
     "players": {"red": {"gold": 12, "treasures": 2, "amulet": 1,
                         "adventures": ["desert", "natives"], "equipment": 3}}}

Text, one player per line (``#`` starts a comment)::

    # goldland tally
    values bandits=4 puma=3
    red gold=12 treasures=2 amulet=1 adventures=desert,natives
    blue gold=9 treasures=3 amulet=0
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from .errors import TallyError

log = logging.getLogger(__name__)

FORMAT_TAG = "goldland-tally/1"

#: The seven adventure types; there is one adventure token per type (seed 003,
#: "Žetony dobrodružství": "Je sedm různých žetonů dobrodružství, každý pro jeden
#: druh dobrodružství").
ADVENTURES: tuple[str, ...] = (
    "bandits",
    "puma",
    "desert",
    "mountains",
    "gorge",
    "water",
    "natives",
)

#: Token values stated by seed 003 ("Žeton pro dobrodružství „poušť“ má například
#: hodnotu 5 kusů zlata, oproti tomu žeton s domorodci má hodnotu jen dvou kusů
#: zlata").  The other five values are printed on the tokens and must be supplied.
KNOWN_TOKEN_VALUES: Mapping[str, int] = {"desert": 5, "natives": 2}

#: Printed token values lie in this range (seed 003: "dle vyznačené hodnoty (2 až 5)").
TOKEN_VALUE_MIN = 2
TOKEN_VALUE_MAX = 5

GOLD_PER_PIECE = 1
GOLD_PER_TREASURE = 3
GOLD_PER_AMULET = 3
BACKPACK_SLOTS = 12
MIN_PLAYERS = 2
MAX_PLAYERS = 5

#: Gold on the temple's supply field by number of players (seed 003, "PŘÍPRAVA HRY").
TEMPLE_SUPPLY: Mapping[int, int] = {2: 3, 3: 6, 4: 9, 5: 12}
#: Gold on the temple's bonus field per player (seed 003: "dvakrát tolik kusů zlata,
#: než je hráčů").
TEMPLE_BONUS_PER_PLAYER = 2

_COUNT_FIELDS = ("gold", "treasures", "amulet", "equipment")
_PLAYER_KEYS = frozenset(_COUNT_FIELDS + ("adventures",))
_TOP_KEYS = frozenset({"format", "token_values", "players"})


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class PlayerTally:
    """What one player holds at the end of a Goldland game.

    Attributes
    ----------
    name : str
        Player name or colour, as the players call it.
    gold : int
        Gold pieces lying beside the backpack.
    treasures : int, default 0
        Treasures in the backpack (each takes one slot).
    amulet : int, default 0
        Amulets in the backpack; a legal tally has 0 or 1.
    adventures : tuple of str, default ()
        Adventure tokens held, by adventure type (see :data:`ADVENTURES`).
    equipment : int or None, default None
        Equipment items in the backpack, if counted; ``None`` leaves the
        equipment out of the backpack check.
    """

    name: str
    gold: int
    treasures: int = 0
    amulet: int = 0
    adventures: tuple[str, ...] = ()
    equipment: int | None = None


@dataclass(frozen=True)
class Tally:
    """A complete end-of-game tally.

    Attributes
    ----------
    players : tuple of PlayerTally
        The players in seating (input) order.
    token_values : dict of str to int
        Printed values of adventure tokens, entered or configured by the user;
        values stated by seed 003 (:data:`KNOWN_TOKEN_VALUES`) need not be given.
    """

    players: tuple[PlayerTally, ...]
    token_values: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class PlayerScore:
    """One player's scored tally; every amount is in gold pieces.

    Attributes
    ----------
    name : str
        Player name or colour.
    place : int
        Final place, 1 is best; players with equal totals share a place.
    gold : int
        Points from gold pieces (1 each).
    treasures : int
        Points from treasures (3 each).
    amulet : int
        Points from the amulet (3, or 0 without one).
    tokens : int
        Points from adventure tokens (sum of their printed values).
    total : int
        Sum of the four parts.
    treasure_count : int
        Number of treasures held.
    adventures : tuple of str
        Adventure tokens held.
    """

    name: str
    place: int
    gold: int
    treasures: int
    amulet: int
    tokens: int
    total: int
    treasure_count: int
    adventures: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return the score as a JSON-ready dictionary."""
        return {
            "place": self.place,
            "player": self.name,
            "gold": self.gold,
            "treasures": self.treasures,
            "amulet": self.amulet,
            "tokens": self.tokens,
            "total": self.total,
            "treasure_count": self.treasure_count,
            "adventures": list(self.adventures),
        }


@dataclass(frozen=True)
class GoldlandResult:
    """The scored tally: ranking, token values used and sanity warnings.

    Attributes
    ----------
    ranking : tuple of PlayerScore
        Players from best to worst total; equal totals keep input order.
    token_values : dict of str to int
        Values of the adventure tokens that were held, in gold pieces.
    warnings : tuple of str
        Sanity warnings (temple gold); they do not stop the scoring.
    """

    ranking: tuple[PlayerScore, ...]
    token_values: Mapping[str, int]
    warnings: tuple[str, ...] = ()

    @property
    def winners(self) -> tuple[str, ...]:
        """Names of the players in first place (more than one on a tie)."""
        return tuple(s.name for s in self.ranking if s.place == 1)

    def to_dict(self) -> dict[str, Any]:
        """Return the result as a JSON-ready dictionary."""
        return {
            "format": "goldland-result/1",
            "ranking": [s.to_dict() for s in self.ranking],
            "winners": list(self.winners),
            "token_values": dict(self.token_values),
            "warnings": list(self.warnings),
        }


# --------------------------------------------------------------------------- helpers


def _check_count(value: Any, what: str) -> int:
    """Return ``value`` if it is a non-negative integer, else raise TallyError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TallyError(f"{what} is {value!r}: expected a whole number 0 or more; fix the count")
    if value < 0:
        raise TallyError(f"{what} is {value}: a count cannot be negative; fix the count")
    return value


def _check_adventure(name: Any, where: str) -> str:
    """Return the normalised adventure type ``name`` or raise TallyError."""
    if not isinstance(name, str):
        raise TallyError(f"{where}: adventure {name!r} is not a name; use one of {', '.join(ADVENTURES)}")
    key = name.strip().lower()
    if key not in ADVENTURES:
        raise TallyError(
            f"{where}: unknown adventure {name!r}; use one of {', '.join(ADVENTURES)}"
        )
    return key


def _check_token_value(adventure: str, value: Any, where: str) -> int:
    """Validate one printed token value (2 to 5, and equal to the seed's value if stated)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TallyError(
            f"{where}: value of the {adventure} token is {value!r}: expected a whole number "
            f"{TOKEN_VALUE_MIN} to {TOKEN_VALUE_MAX}; fix the value"
        )
    if not TOKEN_VALUE_MIN <= value <= TOKEN_VALUE_MAX:
        raise TallyError(
            f"{where}: value of the {adventure} token is {value}: printed token values are "
            f"{TOKEN_VALUE_MIN} to {TOKEN_VALUE_MAX}; fix the value"
        )
    known = KNOWN_TOKEN_VALUES.get(adventure)
    if known is not None and value != known:
        raise TallyError(
            f"{where}: value of the {adventure} token is {value}, but the rules give {known}; "
            f"set {adventure}={known} or leave it out"
        )
    return value


def parse_adventures(text: str, where: str = "adventures") -> tuple[str, ...]:
    """Parse a comma-separated list of adventure types.

    Parameters
    ----------
    text : str
        For example ``"desert, natives"``; empty text or ``-`` means none.
    where : str, optional
        Context put in front of error messages.

    Returns
    -------
    tuple of str
        Normalised adventure types, one per held token (seed 003: one token per
        adventure type, seven in all).

    Raises
    ------
    TallyError
        An unknown adventure type, or the same token listed twice.
    """
    text = text.strip()
    if text in ("", "-"):
        return ()
    names = [_check_adventure(part, where) for part in text.split(",") if part.strip()]
    _check_no_repeats(names, where)
    return tuple(names)


def _check_no_repeats(names: Iterable[str], where: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise TallyError(
                f"{where}: the {name} token is listed twice; there is only one token per "
                "adventure type, so list it once"
            )
        seen.add(name)


# --------------------------------------------------------------------------- reading


def tally_from_dict(data: Any) -> Tally:
    """Build a tally from the decoded ``goldland-tally/1`` JSON document.

    Parameters
    ----------
    data : dict
        ``{"format": "goldland-tally/1", "token_values": {...}, "players": {...}}``;
        ``format`` and ``token_values`` may be left out.  Each player maps to
        ``gold`` (required), ``treasures``, ``amulet``, ``equipment`` (counts) and
        ``adventures`` (list of adventure types).

    Returns
    -------
    Tally
        The tally, not yet checked against the rules (see :func:`score_tally`).

    Raises
    ------
    TallyError
        A wrong format tag, an unknown key, a missing ``gold`` or a value of the
        wrong type; the message names the player and the field.
    """
    if not isinstance(data, dict):
        raise TallyError("a Goldland JSON tally must be an object with a \"players\" object")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise TallyError(
            f"unknown key {unknown[0]!r} in the tally; allowed keys are format, token_values, players"
        )
    tag = data.get("format", FORMAT_TAG)
    if tag != FORMAT_TAG:
        raise TallyError(f"format is {tag!r}: expected {FORMAT_TAG!r}")

    raw_values = data.get("token_values", {})
    if not isinstance(raw_values, dict):
        raise TallyError("\"token_values\" must be an object such as {\"bandits\": 4}")
    values: dict[str, int] = {}
    for name, value in raw_values.items():
        adventure = _check_adventure(name, "token_values")
        values[adventure] = _check_token_value(adventure, value, "token_values")

    raw_players = data.get("players")
    if not isinstance(raw_players, dict):
        raise TallyError(
            "\"players\" is missing or not an object; give one entry per player, "
            "e.g. \"players\": {\"red\": {\"gold\": 12}}"
        )
    players = []
    for name, entry in raw_players.items():
        where = f"player {name}"
        if not isinstance(entry, dict):
            raise TallyError(f"{where}: entry must be an object such as {{\"gold\": 12}}")
        extra = sorted(set(entry) - _PLAYER_KEYS)
        if extra:
            raise TallyError(
                f"{where}: unknown field {extra[0]!r}; allowed fields are "
                "gold, treasures, amulet, adventures, equipment"
            )
        if "gold" not in entry:
            raise TallyError(f"{where}: \"gold\" is missing; add the number of gold pieces")
        adventures = entry.get("adventures", [])
        if isinstance(adventures, str):
            parsed = parse_adventures(adventures, where)
        elif isinstance(adventures, list):
            parsed = tuple(_check_adventure(a, where) for a in adventures)
            _check_no_repeats(parsed, where)
        else:
            raise TallyError(f"{where}: \"adventures\" must be a list such as [\"desert\"]")
        equipment = entry.get("equipment")
        players.append(
            PlayerTally(
                name=str(name),
                gold=_check_count(entry["gold"], f"{where}: gold"),
                treasures=_check_count(entry.get("treasures", 0), f"{where}: treasures"),
                amulet=_check_count(entry.get("amulet", 0), f"{where}: amulet"),
                adventures=parsed,
                equipment=None if equipment is None else _check_count(equipment, f"{where}: equipment"),
            )
        )
    return Tally(players=tuple(players), token_values=values)


def parse_tally_text(text: str) -> Tally:
    """Parse the text tally format, one player per line.

    Parameters
    ----------
    text : str
        Lines such as ``red gold=12 treasures=2 amulet=1 adventures=desert,natives``
        and optional ``values bandits=4 puma=3`` lines giving printed token
        values.  ``#`` starts a comment; blank lines are ignored.  ``gold`` is
        required; ``treasures``, ``amulet`` and ``equipment`` are optional counts.

    Returns
    -------
    Tally
        The tally, not yet checked against the rules (see :func:`score_tally`).

    Raises
    ------
    TallyError
        A line that cannot be read; the message gives the line number and quotes
        the line.
    """
    players: list[PlayerTally] = []
    names: set[str] = set()
    values: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"line {number} ({raw.strip()!r})"
        head, *items = line.split()
        pairs: list[tuple[str, str]] = []
        for item in items:
            key, eq, value = item.partition("=")
            if not eq or not key or not value and key != "adventures":
                raise TallyError(f"{where}: {item!r} is not key=value; write e.g. gold=12")
            pairs.append((key.lower(), value))

        if head.lower() == "values":
            if not pairs:
                raise TallyError(f"{where}: no token values; write e.g. values bandits=4 puma=3")
            for key, value in pairs:
                adventure = _check_adventure(key, where)
                if adventure in values:
                    raise TallyError(f"{where}: the {adventure} value is given twice; give it once")
                values[adventure] = _check_token_value(adventure, _to_int(value, key, where), where)
            continue

        if head in names:
            raise TallyError(f"{where}: player {head} is listed twice; give one line per player")
        names.add(head)
        fields: dict[str, Any] = {}
        for key, value in pairs:
            if key not in _PLAYER_KEYS:
                raise TallyError(
                    f"{where}: unknown field {key!r}; allowed fields are "
                    "gold, treasures, amulet, adventures, equipment"
                )
            if key in fields:
                raise TallyError(f"{where}: {key} is given twice; give it once")
            if key == "adventures":
                fields[key] = parse_adventures(value, where)
            else:
                fields[key] = _check_count(_to_int(value, key, where), f"{where}: {key}")
        if "gold" not in fields:
            raise TallyError(f"{where}: gold is missing; add gold=N with the number of gold pieces")
        players.append(PlayerTally(name=head, **fields))
    if not players:
        raise TallyError("the tally lists no players; add one line per player, e.g. red gold=12")
    return Tally(players=tuple(players), token_values=values)


def _to_int(value: str, key: str, where: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise TallyError(f"{where}: {key}={value!r} is not a whole number; fix the count") from None


def load_tally(path: str | Path) -> Tally:
    """Read a Goldland tally from a JSON file or a text file.

    Parameters
    ----------
    path : str or Path
        A ``.json`` file (or any file whose content starts with ``{``) in the
        ``goldland-tally/1`` format, or a text file with one player per line.

    Returns
    -------
    Tally
        The tally, not yet checked against the rules (see :func:`score_tally`).

    Raises
    ------
    TallyError
        The file cannot be read or parsed; the message names the file and, for
        text files, the line.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TallyError(f"cannot read tally file {path}: {exc}") from None
    log.debug("reading Goldland tally %s", path)
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TallyError(
                f"{path}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
            ) from None
        try:
            return tally_from_dict(data)
        except TallyError as exc:
            raise TallyError(f"{path}: {exc}") from None
    try:
        return parse_tally_text(text)
    except TallyError as exc:
        raise TallyError(f"{path}: {exc}") from None


# --------------------------------------------------------------------------- checks


def _configured_values(tally: Tally) -> dict[str, int]:
    """Return the configured token values keyed by normalised adventure type."""
    return {str(k).strip().lower(): v for k, v in tally.token_values.items()}


def missing_token_values(tally: Tally) -> list[str]:
    """List the held adventure tokens whose printed value is not known.

    Parameters
    ----------
    tally : Tally
        The tally to inspect.

    Returns
    -------
    list of str
        Adventure types in :data:`ADVENTURES` order whose token is held by some
        player but whose value is neither configured in ``tally.token_values``
        nor stated by seed 003 (only desert 5 and natives 2 are).
    """
    held = {a.strip().lower() for p in tally.players for a in p.adventures}
    known = set(KNOWN_TOKEN_VALUES) | set(_configured_values(tally))
    return [a for a in ADVENTURES if a in held and a not in known]


def check_tally(tally: Tally) -> tuple[str, ...]:
    """Check a tally against the rules of seed 003.

    Parameters
    ----------
    tally : Tally
        The tally to check.

    Returns
    -------
    tuple of str
        Sanity warnings that do not make the tally wrong: more gold in play
        than the temple hands out for this many players (seed 003, "PŘÍPRAVA
        HRY": supply 3/6/9/12 gold pieces for 2/3/4/5 players, bonus field 2 per
        player, plus at most one piece per amulet holder taken from the box in
        the last round), and gold held by a player without an amulet (temple
        gold goes only to amulet holders).

    Raises
    ------
    TallyError
        The tally breaks a rule:

        * not 2 to 5 players, or a player listed twice (seed 003, "PŘÍPRAVA HRY");
        * a count that is not a whole number 0 or more;
        * a player with more than one amulet, or more amulets than players
          (seed 003: "Každý hráč může vlastnit pouze jeden amulet"; one amulet
          per player is put on the temple);
        * an unknown adventure type or a token held twice (seed 003: one token
          per adventure type, seven in all);
        * more than 12 backpack items: treasures, amulet and equipment when
          given (seed 003, "Batoh": "Batoh má 12 míst");
        * a held token whose printed value is neither stated by seed 003 nor
          configured; the message says which value to add.
    """
    players = tally.players
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise TallyError(
            f"the tally lists {len(players)} player(s): Goldland is played by "
            f"{MIN_PLAYERS} to {MAX_PLAYERS} players; fix the player list"
        )
    seen_names: set[str] = set()
    for p in players:
        if not isinstance(p.name, str) or not p.name.strip():
            raise TallyError(f"player name {p.name!r} is empty; give each player a name or colour")
        if p.name in seen_names:
            raise TallyError(f"player {p.name} is listed twice; give each player once")
        seen_names.add(p.name)

    holders: dict[str, str] = {}
    for p in players:
        where = f"player {p.name}"
        _check_count(p.gold, f"{where}: gold")
        _check_count(p.treasures, f"{where}: treasures")
        _check_count(p.amulet, f"{where}: amulet")
        if p.equipment is not None:
            _check_count(p.equipment, f"{where}: equipment")
        if p.amulet > 1:
            raise TallyError(
                f"player {p.name} holds {p.amulet} amulets: a player can hold at most one "
                "amulet; fix the amulet count"
            )
        adventures = [_check_adventure(a, where) for a in p.adventures]
        _check_no_repeats(adventures, where)
        for a in adventures:
            if a in holders:
                raise TallyError(
                    f"the {a} adventure token is held by both {holders[a]} and {p.name}: "
                    "there is one token per adventure type; keep it with one player only"
                )
            holders[a] = p.name
        used = p.treasures + p.amulet + (p.equipment or 0)
        if used > BACKPACK_SLOTS:
            parts = f"{p.treasures} treasure(s) + {p.amulet} amulet"
            if p.equipment is not None:
                parts += f" + {p.equipment} equipment"
            raise TallyError(
                f"player {p.name} fills {used} backpack slots ({parts}): the backpack has "
                f"{BACKPACK_SLOTS} slots; fix the counts"
            )

    amulets = sum(p.amulet for p in players)
    if amulets > len(players):
        raise TallyError(
            f"{amulets} amulets in play for {len(players)} players: the temple holds one "
            "amulet per player; fix the amulet counts"
        )

    for adventure, value in tally.token_values.items():
        name = _check_adventure(adventure, "token values")
        _check_token_value(name, value, "token values")
    missing = missing_token_values(tally)
    if missing:
        a = missing[0]
        raise TallyError(
            f"the value of the {a} adventure token (held by {holders[a]}) is unknown: it is "
            f"printed on the token ({TOKEN_VALUE_MIN} to {TOKEN_VALUE_MAX}); add it, e.g. "
            f"'values {a}=N' in a text tally or \"token_values\": {{\"{a}\": N}} in JSON"
        )

    warnings: list[str] = []
    n = len(players)
    total_gold = sum(p.gold for p in players)
    holders_count = sum(1 for p in players if p.amulet)
    limit = TEMPLE_SUPPLY[n] + TEMPLE_BONUS_PER_PLAYER * n + holders_count
    if total_gold > limit:
        warnings.append(
            f"{total_gold} gold pieces in play, but with {n} players the temple holds "
            f"{TEMPLE_SUPPLY[n]} (supply) + {TEMPLE_BONUS_PER_PLAYER * n} (bonus field), plus at "
            f"most {holders_count} taken from the box in the last round; check the gold counts"
        )
    for p in players:
        if p.gold and not p.amulet:
            warnings.append(
                f"player {p.name} has {p.gold} gold but no amulet: temple gold goes only to "
                "amulet holders; check the gold and amulet counts"
            )
    for w in warnings:
        log.info("sanity warning: %s", w)
    return tuple(warnings)


# --------------------------------------------------------------------------- scoring


def score_tally(tally: Tally) -> GoldlandResult:
    """Score a Goldland end-of-game tally and rank the players.

    Parameters
    ----------
    tally : Tally
        What each player holds, and the printed values of the adventure tokens.

    Returns
    -------
    GoldlandResult
        Per-player breakdown in gold pieces (seed 003, "KONEC HRY A HODNOCENÍ":
        gold piece 1, treasure 3, amulet 3, adventure token its printed value)
        and the ranking: the most gold wins, equal totals share a place and the
        next place is skipped (1., 1., 3.); the rules give no tie-breaker.

    Raises
    ------
    TallyError
        The tally breaks a rule or a held token's value is unknown; see
        :func:`check_tally`.
    """
    warnings = check_tally(tally)
    values = {**KNOWN_TOKEN_VALUES, **_configured_values(tally)}
    rows = []
    for p in tally.players:
        gold = p.gold * GOLD_PER_PIECE
        treasures = p.treasures * GOLD_PER_TREASURE
        amulet = p.amulet * GOLD_PER_AMULET
        adventures = tuple(a.strip().lower() for a in p.adventures)
        tokens = sum(values[a] for a in adventures)
        total = gold + treasures + amulet + tokens
        log.debug(
            "%s: gold %d + treasures %d + amulet %d + tokens %d = %d",
            p.name, gold, treasures, amulet, tokens, total,
        )
        rows.append((p, gold, treasures, amulet, tokens, total, adventures))

    rows.sort(key=lambda r: -r[5])  # stable: equal totals keep input order
    ranking = []
    place = 0
    previous = None
    for index, (p, gold, treasures, amulet, tokens, total, adventures) in enumerate(rows, start=1):
        if total != previous:
            place = index
            previous = total
        ranking.append(
            PlayerScore(
                name=p.name,
                place=place,
                gold=gold,
                treasures=treasures,
                amulet=amulet,
                tokens=tokens,
                total=total,
                treasure_count=p.treasures,
                adventures=adventures,
            )
        )
    held = {a for r in rows for a in r[6]}
    used_values = {a: values[a] for a in ADVENTURES if a in held}
    return GoldlandResult(ranking=tuple(ranking), token_values=used_values, warnings=warnings)
