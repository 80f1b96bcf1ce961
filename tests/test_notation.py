"""Tests of the text notation (scorer/notation.py): parse, print, round trips, errors."""

from __future__ import annotations

import json
import logging
import re
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.board import COLOURS, Board, read_board
from scorer.errors import BoardFormatError, NotationError
from scorer.features import FeatureGraph
from scorer.geometry import LOCATIONS
from scorer.notation import format_notation, notation_fields, notation_to_dict, parse_notation
from scorer.tiles import builtin_sets_for, catalog_for, parse_tile

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BASE = catalog_for("carcassonne")
BASE_IDS = sorted(BASE.tiles)

MY_TILE = {"gold": True, "features": [
    {"kind": "city", "edges": ["N", "W"], "pennants": 1},
    {"kind": "road", "edges": ["E", "S"]},
    {"kind": "field", "edges": ["EL", "SR"], "cities": [0]},
    {"kind": "field", "edges": ["ER", "SL"]},
]}

CANONICAL = (
    "game carcassonne\n"
    "rules small_city=2 farmers=2nd\n"
    "players red blue green\n"
    "active blue\n"
    "last 0,-1\n"
    "track red=12 blue=9 green=7\n"
    "held red gold_bars=3 ore_points=7\n"
    "held blue\n"
    f"tile my-tile {json.dumps(MY_TILE)}\n"
    "\n"
    "0,0 D 0 red@N gold=2\n"
    "0,-1 E 2\n"
    "-1,0 U 0 blue@W tent:red@N sheriff@S gold=1 gold=0 ore@E=3\n"
    "1,0 my-tile 1 green@SL\n"
)


def _catalogue_ready(game: str, expansions: list[str]) -> bool:
    """Whether every built-in tile set the game needs is in the package yet."""
    tiles = resources.files("scorer").joinpath("data", "tiles")
    return all(tiles.joinpath(f"{n}.json").is_file() for n in builtin_sets_for(game, expansions))


# --------------------------------------------------------------------------- fixed examples


def test_parse_fixed_text_gives_exact_board_json():
    board = parse_notation(CANONICAL)
    d = board.to_dict()
    assert d["game"] == "carcassonne" and d["expansions"] == []
    assert d["rules"] == {"small_city": 2, "farmers": "2nd"}
    assert d["players"] == ["red", "blue", "green"]
    assert d["active"] == "blue"
    assert d["last_placed"] == {"x": 0, "y": -1}
    assert d["tiles"] == [
        {"x": 0, "y": 0, "tile": "D", "rot": 0},
        {"x": 0, "y": -1, "tile": "E", "rot": 2},
        {"x": -1, "y": 0, "tile": "U", "rot": 0},
        {"x": 1, "y": 0, "tile": {"name": "my-tile", **MY_TILE}, "rot": 1},
    ]
    assert d["meeples"] == [
        {"player": "red", "x": 0, "y": 0, "at": "N"},
        {"player": "blue", "x": -1, "y": 0, "at": "W"},
        {"player": "green", "x": 1, "y": 0, "at": "SL"},
    ]
    assert d["tents"] == [{"player": "red", "x": -1, "y": 0, "at": "N"}]
    assert d["sheriff"] == {"x": -1, "y": 0, "at": "S"}
    assert d["gold"] == [{"x": 0, "y": 0, "count": 2}, {"x": -1, "y": 0, "count": 1}, {"x": -1, "y": 0, "count": 0}]
    assert d["ore"] == [{"x": -1, "y": 0, "at": "E", "count": 3}]
    assert d["held"] == {"red": {"gold_bars": 3, "ore_points": 7}, "blue": {}}
    assert d["track"] == {"red": 12, "blue": 9, "green": 7}
    assert board.tiles[(1, 0)].tile.id == "my-tile"
    assert board.tiles[(1, 0)].tile.gold is True


def test_canonical_text_prints_back_identically():
    assert format_notation(parse_notation(CANONICAL)) == CANONICAL


def test_minimal_board_prints_game_line_blank_line_and_tile():
    assert format_notation(parse_notation("0,0 D 0")) == "game carcassonne\n\n0,0 D 0\n"


def test_empty_text_is_an_empty_board():
    board = parse_notation("# nothing yet\n")
    assert board.tiles == {} and board.players == []
    assert format_notation(board) == "game carcassonne\n"


def test_free_form_text_prints_in_canonical_form():
    text = (
        "\ufeff# typed by hand\n"
        "   \n"
        "0,0   D 0   RED@n   # the start tile\n"
        "track blue=3 red=0\n"
        "1,0 my-tile 1 sheriff@sl\n"
        "players  Red  Blue\n"
        "tile my-tile " + json.dumps(MY_TILE) + "\n"
        "last_placed 1,0\n"
        "game Carcassonne\n"
    )
    expected = (
        "game carcassonne\n"
        "players red blue\n"
        "last 1,0\n"
        "track blue=3 red=0\n"
        f"tile my-tile {json.dumps(MY_TILE)}\n"
        "\n"
        "0,0 D 0 red@N\n"
        "1,0 my-tile 1 sheriff@SL\n"
    )
    assert format_notation(parse_notation(text)) == expected


def test_gold_rush_board_with_tents_ore_and_sheriff_round_trips():
    text = (
        "game goldrush sheriff\n"
        "players red blue\n"
        "held blue ore_points=7 ore_tokens=2\n"
        "sheriff 0,-1 S\n"
        "0,0 GR05 0 blue@W tent:red@N ore@N=3\n"
        "0,-1 GR06 2\n"
    )
    board = parse_notation(text)
    d = board.to_dict()
    assert d["tiles"] == [{"x": 0, "y": 0, "tile": "GR05", "rot": 0}, {"x": 0, "y": -1, "tile": "GR06", "rot": 2}]
    assert d["meeples"] == [{"player": "blue", "x": 0, "y": 0, "at": "W"}]
    assert d["tents"] == [{"player": "red", "x": 0, "y": 0, "at": "N"}]
    assert d["ore"] == [{"x": 0, "y": 0, "at": "N", "count": 3}]
    assert d["sheriff"] == {"x": 0, "y": -1, "at": "S"}
    assert d["held"] == {"blue": {"ore_points": 7, "ore_tokens": 2}}
    # the Sheriff header line is printed on its tile line
    assert format_notation(board) == (
        "game goldrush sheriff\n"
        "players red blue\n"
        "held blue ore_points=7 ore_tokens=2\n"
        "\n"
        "0,0 GR05 0 blue@W tent:red@N ore@N=3\n"
        "0,-1 GR06 2 sheriff@S\n"
    )
    assert parse_notation(format_notation(board)).to_dict() == d


def test_inline_tile_object_keeps_its_own_name_and_same_dict_shares_one_definition():
    named = {"name": "two words", **MY_TILE}
    obj = {
        "format": "carcassonne-board/1", "game": "carcassonne",
        "tiles": [
            {"x": 0, "y": 0, "tile": named, "rot": 0},
            {"x": 1, "y": 0, "tile": dict(named), "rot": 2},
            {"x": 2, "y": 0, "tile": {"name": "D", **MY_TILE}, "rot": 0},
        ],
    }
    board = Board.from_dict(obj)
    text = format_notation(board)
    assert text.splitlines()[1:3] == [
        "tile inline1 " + json.dumps(named),
        "tile inline2 " + json.dumps({"name": "D", **MY_TILE}),
    ]
    assert text.splitlines()[-3:] == ["0,0 inline1 0", "1,0 inline1 2", "2,0 inline2 0"]
    assert parse_notation(text).to_dict() == board.to_dict()


def test_nameless_inline_tile_gains_its_notation_name():
    obj = {"format": "carcassonne-board/1", "tiles": [{"x": 0, "y": 0, "tile": MY_TILE, "rot": 1}]}
    board = Board.from_dict(obj)
    text = format_notation(board)
    assert "tile inline1 " + json.dumps(MY_TILE) in text.splitlines()
    back = parse_notation(text).to_dict()
    assert back["tiles"][0]["tile"] == {"name": "inline1", **MY_TILE}
    assert back == notation_fields(board)


def test_notation_drops_extras_and_groups_figures_by_tile():
    obj = {
        "format": "carcassonne-board/1", "game": "carcassonne", "players": ["red", "blue"],
        "tiles": [{"x": 0, "y": 0, "tile": "D", "rot": 0, "confidence": 0.9},
                  {"x": 1, "y": 0, "tile": "V", "rot": 0}],
        "meeples": [{"player": "blue", "x": 1, "y": 0, "at": "W", "confidence": 0.5},
                    {"player": "red", "x": 0, "y": 0, "at": "N"},
                    {"player": "red", "x": 1, "y": 0, "at": "NL"}],
        "gold": [{"x": 1, "y": 0, "count": 1, "seen": True}, {"x": 0, "y": 0, "count": 2}],
        "photo": "table.jpg",
    }
    board = Board.from_dict(obj)
    text = format_notation(board)
    assert text.splitlines()[-2:] == ["0,0 D 0 red@N gold=2", "1,0 V 0 blue@W red@NL gold=1"]
    back = parse_notation(text).to_dict()
    assert back == notation_fields(board)
    assert back["meeples"] == [
        {"player": "red", "x": 0, "y": 0, "at": "N"},
        {"player": "blue", "x": 1, "y": 0, "at": "W"},
        {"player": "red", "x": 1, "y": 0, "at": "NL"},
    ]
    assert back["gold"] == [{"x": 0, "y": 0, "count": 2}, {"x": 1, "y": 0, "count": 1}]
    assert "photo" not in back and "confidence" not in back["tiles"][0]


def test_rule_values_the_notation_cannot_write_are_left_out_with_a_warning(caplog):
    # Board.from_dict refuses unknown rules; a board built in code may still carry them.
    obj = {"format": "carcassonne-board/1", "rules": {"small_city": 2},
           "tiles": [{"x": 0, "y": 0, "tile": "D", "rot": 0}]}
    board = Board.from_dict(obj)
    board.rules.update({"house": "two words", "bonus": True})
    with caplog.at_level(logging.WARNING, logger="scorer.notation"):
        text = format_notation(board)
    assert text.splitlines()[1] == "rules small_city=2 bonus=true"
    assert "house='two words' cannot be written" in caplog.text
    with pytest.raises(NotationError, match=r"^line 2: rules bonus: unknown rule 'bonus'; known rules: small_city, "
                                            r"farmers in 'rules small_city=2 bonus=true'$"):
        parse_notation(text)


def test_notation_to_dict_checks_syntax_only():
    obj = notation_to_dict("game carcassonne goldmines\n0,0 GM7 1 red@C\n")
    assert obj["expansions"] == ["goldmines"]
    assert obj["tiles"] == [{"x": 0, "y": 0, "tile": "GM7", "rot": 1}]
    assert obj["meeples"] == [{"player": "red", "x": 0, "y": 0, "at": "C"}]
    with pytest.raises(NotationError, match=r"^line 2: rot must be 0-3"):
        notation_to_dict("game carcassonne\n0,0 D 4\n")


# --------------------------------------------------------------------------- errors

SYNTAX_ERRORS = [
    ("0,0 D 0\n0,1 D 5\n", r"^line 2: rot must be 0-3 \(clockwise quarter turns\), got '5' in '0,1 D 5'$"),
    ("0,0 D 0\n0,0 E 1\n", r"^line 2: two tiles on cell 0,0 \(lines 1 and 2\) in '0,0 E 1'$"),
    ("game carcassonne\nplayers red purple\n",
     r"^line 2: colour 'purple' is not one of red, blue, green, yellow, black, grey, pink in 'players red purple'$"),
    ("0,0 D 0 purple@N\n",
     r"^line 1: figure 'purple@N': colour 'purple' is not one of red, blue, .* in '0,0 D 0 purple@N'$"),
    ("0,0 D 0 tent:olive@N\n", r"^line 1: figure 'tent:olive@N': colour 'olive' is not one of red"),
    ("0,0 D 0 red@Q\n", r"^line 1: figure 'red@Q': location 'Q' is not one of N E S W NL NR EL ER SL SR WL WR C in"),
    ("0,0 D 0 red\n",
     r"^line 1: unknown figure 'red'; expected COLOUR@LOC, tent:COLOUR@LOC, sheriff@LOC, gold=N or ore@LOC=N"),
    ("0,0 D 0 hut:red@N\n", r"^line 1: unknown figure 'hut:red@N'"),
    ("0,0 D 0 silver=2\n", r"^line 1: unknown figure 'silver=2'"),
    ("0,0 D 0 gold=-1\n",
     r"^line 1: figure 'gold=-1': gold must be a whole number, 0 or more, got '-1' in '0,0 D 0 gold=-1'$"),
    ("0,0 D 0 ore@N=x\n", r"^line 1: figure 'ore@N=x': ore must be a whole number, 0 or more, got 'x'"),
    ("0,0 D\n", r"^line 1: a tile line needs 'X,Y TILE ROT \[FIGURE ...\]', got 2 field\(s\) in '0,0 D'$"),
    ("0,0 D 0\n0,x D 0\n", r"^line 2: unknown line start '0,x'"),
    ("# c\nplayres red\n", r"^line 2: unknown line start 'playres' \(did you mean 'players'\?\); a line is a header"),
    ("players red\nplayers blue\n", r"^line 2: second 'players' line \(the first is line 1\) in 'players blue'$"),
    ("players red red\n", r"^line 1: players: colour 'red' is listed twice in 'players red red'$"),
    ("active red blue\n", r"^line 1: active: expected one colour, 'active red' in 'active red blue'$"),
    ("last 1, 0\n", r"^line 1: last: expected one cell, 'last 2,-1' in 'last 1, 0'$"),
    ("last 1;0\n", r"^line 1: last must be a cell X,Y such as 0,-1 \(no spaces\), got '1;0' in 'last 1;0'$"),
    ("track red=12 blue\n", r"^line 1: track: expected KEY=VALUE, got 'blue' in 'track red=12 blue'$"),
    ("track red=-3\n", r"^line 1: track red must be a whole number, 0 or more, got '-3'"),
    ("track red=1 red=2\n", r"^line 1: track: 'red' is given twice"),
    ("held\n", r"^line 1: held: expected 'held COLOUR KEY=COUNT ...'"),
    ("held red gold_bars=x\n", r"^line 1: held red gold_bars must be a whole number, 0 or more, got 'x'"),
    ("held red gold_bars=1\nheld red ore_points=2\n", r"^line 2: second 'held red' line \(the first is line 1\)"),
    ("rules small_city\n", r"^line 1: rules: expected KEY=VALUE, got 'small_city'"),
    ("game\n", r"^line 1: game: expected 'game GAME \[EXPANSION ...\]'"),
    ("game carcassonne river river\n", r"^line 1: game: an expansion is listed twice"),
    ("sheriff 0,0 Q\n",
     r"^line 1: sheriff: location 'Q' is not one of N E S W NL NR EL ER SL SR WL WR C in 'sheriff 0,0 Q'$"),
    ("0,0 D 0 ore@X=1\n", r"^line 1: figure 'ore@X=1': location 'X' is not one of N E S W"),
    ("sheriff 0,0\n", r"^line 1: sheriff: expected 'sheriff X,Y LOC', e.g. 'sheriff 3,1 N' in 'sheriff 0,0'$"),
    ("sheriff 0,0 N\n0,0 D 0 sheriff@S\n",
     r"^line 2: a second Sheriff \(the first is on line 1\) in '0,0 D 0 sheriff@S'$"),
    ("tile t\n", r"^line 1: tile: expected 'tile NAME \{JSON object\}' in 'tile t'$"),
    ("tile t {features: 1}\n",
     r"^line 1: tile 't': not JSON \(Expecting property name enclosed in double quotes at column 9\)"),
    ("tile t [1, 2]\n", r"^line 1: tile 't': expected a JSON object"),
    ("tile 1,2 {}\n", r"^line 1: tile: name '1,2' looks like a cell"),
    ('tile t {"features": [{"kind": "castle"}]}\n',
     r"^line 1: tile 't': features\[0\]: unknown feature kind 'castle'; expected one of city, road"),
    ('tile t {"features": [{"kind": "cloister"}]}\n',
     r"^line 1: tile 't': half-side NL belongs to no field \(side N is not a city or mountain\) in 'tile t "),
    (f"tile t {json.dumps(MY_TILE)}\ntile t {json.dumps(MY_TILE)}\n",
     r"^line 2: tile 't' is defined twice \(the first is line 1\)"),
    ('tile t {"features": [{"kind": "cloister"}]} # note\n',
     r"^line 1: tile 't': not JSON \(Extra data at column 45\); the JSON object must end the line"),
]


@pytest.mark.parametrize("text, match", SYNTAX_ERRORS)
def test_syntax_errors_name_the_line_field_and_text(text, match):
    with pytest.raises(NotationError, match=match):
        parse_notation(text)


def test_long_lines_are_quoted_shortened():
    text = "0,0 D 0 " + " ".join(["red@N"] * 20) + " red@Q\n"
    with pytest.raises(NotationError) as info:
        parse_notation(text)
    message = str(info.value)
    assert message.endswith(" red@N red...'")
    assert len(message[message.index(" in '") + 5:-1]) == 80


BOARD_ERRORS = [
    ("game carcassonne\n\n0,0 D 0\n0,1 Z 0\n",
     r"^line 4: unknown tile id 'Z' for carcassonne; known ids: A B .* X in '0,1 Z 0'$"),
    ("0,0 D 0\n0,1 E 0 red@N blue@NL\n0,2 E 0\n",
     r"^line 2: figure 'blue@NL': tile E \(rot 0\) has no feature at 'NL' in '0,1 E 0 red@N blue@NL'$"),
    ("0,0 D 1 red@EL\n", r"^line 1: figure 'red@EL': tile D \(rot 1\) has no feature at 'EL' in '0,0 D 1 red@EL'$"),
    ("0,0 D 0 tent:red@C\n", r"^line 1: figure 'tent:red@C': tile D \(rot 0\) has no feature at 'C'"),
    ("0,0 D 0 ore@C=2\n", r"^line 1: figure 'ore@C=2': tile D \(rot 0\) has no feature at 'C'"),
    ("0,0 D 0 sheriff@C\n", r"^line 1: figure 'sheriff@C': tile D \(rot 0\) has no feature at 'C'"),
    ("0,0 D 0\nsheriff 0,0 C\n", r"^line 2: sheriff: tile D \(rot 0\) has no feature at 'C' in 'sheriff 0,0 C'$"),
    ("sheriff 5,5 N\n0,0 D 0\n", r"^line 1: sheriff: no tile on that cell in 'sheriff 5,5 N'$"),
    ("game chess\n0,0 D 0\n",
     r"^line 1: game: unknown game 'chess'; expected one of carcassonne, goldrush in 'game chess'$"),
    ("game carcassonne dragons\n",
     r"^line 1: game: unknown expansion 'dragons' for carcassonne; known: river, goldmines"),
    ("rules small_city=3\n", r"^line 1: rules small_city: must be one of 4, 2, got 3 in 'rules small_city=3'$"),
    ("rules farmers=4th\n", r"^line 1: rules farmers: must be one of 3rd, 2nd, 1st, got '4th'"),
    ("players red blue\nactive green\n",
     r"^line 2: active: 'green' is not one of the players \['red', 'blue'\] in 'active green'$"),
    ("0,0 D 0\nlast 2,-1\n", r"^line 2: last: no tile on that cell in 'last 2,-1'$"),
    ("held red gold=3\n",
     r"^line 1: held red: unknown key 'gold'; known: gold_bars, ore_points, ore_tokens in 'held red gold=3'$"),
    ('tile D {"features": [{"kind": "cloister"}, {"kind": "field", "edges": '
     '["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"]}]}\n0,0 D 0\n',
     r"^line 1: tile: 'D' is already a catalogue tile id; pick another name"),
]


@pytest.mark.parametrize("text, match", BOARD_ERRORS)
def test_board_errors_from_the_board_reader_name_the_source_line(text, match):
    with pytest.raises(NotationError, match=match):
        parse_notation(text)


def test_notation_error_is_a_board_format_error_and_value_error():
    with pytest.raises(BoardFormatError):
        parse_notation("0,0 D 9\n")
    with pytest.raises(ValueError):
        parse_notation("0,0 D 9\n")


def test_unknown_user_tile_set_error_names_the_game_line(tmp_path):
    other = tmp_path / "mine.json"
    other.write_text(json.dumps({
        "format": "carcassonne-tiles/1", "name": "mine", "game": "goldrush",
        "tiles": [{"id": "Q1", "features": [{"kind": "town"}, {"kind": "prairie", "edges":
                   ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"]}]}],
    }))
    with pytest.raises(NotationError, match=r"^line 1: tile set 'mine' is for goldrush, but the board is carcassonne"):
        parse_notation("game carcassonne\n0,0 D 0\n", tile_sets=[other])


# --------------------------------------------------------------------------- property tests


@st.composite
def boards(draw) -> Board:
    """Random valid base-game boards: tiles at distinct cells, figures where their tiles allow."""
    n = draw(st.integers(0, 8))
    cells = draw(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), min_size=n, max_size=n, unique=True))
    tiles, types, meeples, tents, gold, ore = [], [], [], [], [], []
    inline_pool = [
        {"name": "my-tile", **MY_TILE},
        MY_TILE,
        {"name": "E", **BASE["E"].to_dict(with_id=False)},
        {"name": "a b", **BASE["B"].to_dict(with_id=False)},
    ]
    for x, y in cells:
        if draw(st.integers(0, 5)) == 0:
            ref = draw(st.sampled_from(inline_pool))
            tile_type = parse_tile(ref, "test", tile_id=ref.get("name") or "inline")
        else:
            ref = draw(st.sampled_from(BASE_IDS))
            tile_type = BASE[ref]
        rot = draw(st.integers(0, 3))
        tiles.append({"x": x, "y": y, "tile": ref, "rot": rot})
        valid = [loc for loc in LOCATIONS if tile_type.turned(rot).locate(loc) is not None]
        types.append(valid)
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["meeple", "meeple", "tent", "gold", "ore"]))
            at = draw(st.sampled_from(valid))
            colour = draw(st.sampled_from(COLOURS))
            if kind == "meeple":
                meeples.append({"player": colour, "x": x, "y": y, "at": at})
            elif kind == "tent":
                tents.append({"player": colour, "x": x, "y": y, "at": at})
            elif kind == "gold":
                gold.append({"x": x, "y": y, "count": draw(st.integers(0, 12))})
            else:
                ore.append({"x": x, "y": y, "at": at, "count": draw(st.integers(0, 12))})
    # shuffle the figure lists: the notation groups them by tile
    meeples = draw(st.permutations(meeples))
    gold = draw(st.permutations(gold))
    players = draw(st.lists(st.sampled_from(COLOURS), unique=True, max_size=5))
    obj = {
        "format": "carcassonne-board/1", "game": "carcassonne", "expansions": [],
        "players": players, "tiles": tiles, "meeples": meeples, "tents": tents, "gold": gold, "ore": ore,
        "active": draw(st.sampled_from(players)) if players and draw(st.booleans()) else None,
        "track": {c: draw(st.integers(0, 250)) for c in players if draw(st.booleans())},
        "held": {c: {k: draw(st.integers(0, 20)) for k in ("gold_bars", "ore_points") if draw(st.booleans())}
                 for c in players if draw(st.booleans())},
    }
    if tiles and draw(st.booleans()):
        obj["last_placed"] = {"x": cells[-1][0], "y": cells[-1][1]}
    if tiles and draw(st.booleans()):
        i = draw(st.integers(0, len(tiles) - 1))
        obj["sheriff"] = {"x": cells[i][0], "y": cells[i][1], "at": draw(st.sampled_from(types[i]))}
    rules = {}
    if draw(st.booleans()):
        rules["small_city"] = draw(st.sampled_from([4, 2]))
    if draw(st.booleans()):
        rules["farmers"] = draw(st.sampled_from(["3rd", "2nd", "1st"]))
    if rules:
        obj["rules"] = rules
    return Board.from_dict(obj)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_print_parse_round_trip_on_random_boards(board):
    text = format_notation(board)
    back = parse_notation(text)
    assert back.to_dict() == notation_fields(board)
    assert format_notation(back) == text


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([
    "0,0", "1,0", "-1,2", "D", "E", "U", "Z", "0", "1", "3", "5", "red@N", "blue@C", "red@Q",
    "tent:red@N", "sheriff@N", "gold=2", "gold=x", "ore@N=1", "ore@C=", "game", "carcassonne",
    "players", "active", "last", "track", "red=3", "held", "gold_bars=2", "rules", "small_city=2",
    "tile", "{", "}", "#", "\n", "\n", "\n", "=", "@", ":",
]), max_size=30))
def test_any_token_soup_gives_a_board_or_a_notation_error(tokens):
    text = " ".join(tokens)
    try:
        board = parse_notation(text)
    except NotationError as exc:
        assert re.match(r"line \d+: ", str(exc))
    else:
        assert parse_notation(format_notation(board)).to_dict() == notation_fields(board)


# --------------------------------------------------------------------------- files and examples


def test_read_board_gives_the_same_board_from_notation_and_from_json(tmp_path):
    board = parse_notation(CANONICAL)
    (tmp_path / "b.txt").write_text(CANONICAL, encoding="utf-8")
    board.save(tmp_path / "b.json")
    from_text = read_board(tmp_path / "b.txt")
    from_json = read_board(tmp_path / "b.json")
    assert from_text.to_dict() == from_json.to_dict() == board.to_dict()


def test_read_board_raises_notation_error_for_bad_notation_file(tmp_path):
    (tmp_path / "b.txt").write_text("0,0 D 0\n0,0 D 1\n", encoding="utf-8")
    with pytest.raises(NotationError, match=r"line 2: two tiles on cell 0,0 \(lines 1 and 2\)"):
        read_board(tmp_path / "b.txt")


# Board examples (examples/goldland-tally.txt is a Goldland tally, not a board).
EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES.glob("*.txt") if not p.stem.startswith("goldland"))


def test_examples_are_there():
    assert EXAMPLE_NAMES == ["base-midgame", "custom-tile-midgame", "goldmines-final"]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_text_and_json_are_the_same_legal_board(name):
    text = (EXAMPLES / f"{name}.txt").read_text(encoding="utf-8")
    obj = notation_to_dict(text)
    assert json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8")) == obj
    if not _catalogue_ready(obj["game"], obj["expansions"]):
        pytest.skip(f"built-in tile sets for {obj['game']} {obj['expansions']} are not in the package yet")
    board = read_board(EXAMPLES / f"{name}.txt")
    assert board.to_dict() == read_board(EXAMPLES / f"{name}.json").to_dict()
    assert FeatureGraph(board).mismatches == []
    assert parse_notation(format_notation(board)).to_dict() == board.to_dict()


# What each example's comment says it scores: mode, points per player, figures going back.
EXAMPLE_SCORES = {
    "base-midgame": ("completed", {"red": 4, "blue": 0, "green": 0}, [("red", 0, 0, "N")]),
    "custom-tile-midgame": ("completed", {"red": 6, "blue": 0}, [("red", 0, 0, "W")]),
    "goldmines-final": ("final", {"red": 16, "blue": 12}, None),
}


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_scores_what_its_comment_says(name):
    from scorer.scoring import score

    mode, points, returned = EXAMPLE_SCORES[name]
    board = read_board(EXAMPLES / f"{name}.txt")
    report = score(board, mode)
    assert report.points == points
    if returned is not None:
        assert [(m.player, m.x, m.y, m.at) for m in report.returned] == returned
