"""Random legal games (scorer.generate): every board a table real play could leave."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest
from click.testing import CliRunner

from scorer.board import Board
from scorer.features import FeatureGraph
from scorer.generate import (
    GOLD_BARS,
    ORE_TOKENS,
    GenerateError,
    PlayStyle,
    generate_game,
    generate_history,
    generate_turns,
    play_game,
)
from scorer.generate_cli import generate
from scorer.geometry import OPPOSITE, SIDES, neighbour
from scorer.legality import problems
from scorer.scoring import rules_module, score

COMBOS = [
    ("carcassonne", ()),
    ("carcassonne", ("river",)),
    ("carcassonne", ("goldmines",)),
    ("carcassonne", ("river", "goldmines")),
    ("goldrush", ()),
    ("goldrush", ("sheriff",)),
]
SEEDS = (0, 1, 2)
#: Players per seed: 2, 3 and 5 (the Gold Rush box has 5 colours).
PLAYERS = {0: ("red", "blue"), 1: ("green", "yellow", "black"), 2: ("red", "blue", "green", "yellow", "black")}
#: Tiles in the box: base 72 (start tile included), Goldmines 8, River I + II 24 less one
#: spring and the River I lake (rules.md section 3), Gold Rush 72, The Sheriff 6.
BOX = {
    ("carcassonne", ()): 72,
    ("carcassonne", ("river",)): 94,
    ("carcassonne", ("goldmines",)): 80,
    ("carcassonne", ("river", "goldmines")): 102,
    ("goldrush", ()): 72,
    ("goldrush", ("sheriff",)): 78,
}
CASES = [pytest.param(g, e, s, id=f"{g}{''.join('+' + x for x in e)}-{s}") for g, e in COMBOS for s in SEEDS]


@functools.lru_cache(maxsize=None)
def played(game: str, expansions: tuple[str, ...], seed: int):
    return play_game(game, expansions, players=PLAYERS[seed], rng=np.random.default_rng(seed))


def boards(result):
    """(previous board, turn) pairs: the board before each turn and the turn."""
    prev = None
    for t in result.turns:
        yield prev, t
        prev = t.board


def piece(board: Board, fig) -> int:
    p = board.tiles[fig.cell]
    return p.tile.turned(p.rot).locate(fig.at)


# --------------------------------------------------------------------------- legality


@pytest.mark.parametrize("game, expansions, seed", CASES)
def test_the_final_board_passes_the_rules_engine(game, expansions, seed):
    # Every turn's boards are checked by score() in the two tests further down
    # (Report.problems holds scorer.legality.problems of the scored board).
    result = played(game, expansions, seed)
    final = result.board
    assert final.to_json() == result.turns[-1].board.to_json()
    assert FeatureGraph(final).mismatches == []
    assert problems(final, FeatureGraph(final)) == []
    assert score(final, "final").problems == []


@pytest.mark.parametrize("game, expansions, seed", CASES)
def test_whole_box_is_played(game, expansions, seed):
    result = played(game, expansions, seed)
    discarded = sum(len(t.discarded) for t in result.turns)
    assert len(result.board.tiles) + discarded == BOX[(game, expansions)]
    assert len(result.turns) == len(result.board.tiles) - 1


@pytest.mark.parametrize("game, expansions, seed", CASES)
def test_figures_and_tokens_stay_within_the_box(game, expansions, seed):
    result = played(game, expansions, seed)
    limits = rules_module(game).FIGURES_PER_COLOUR
    for t in result.turns:
        for b in (t.placed, t.board):
            for colour in b.players:
                assert sum(1 for m in b.meeples if m.player == colour) <= limits["meeples"]
                assert sum(1 for m in b.tents if m.player == colour) <= limits.get("tents", 0)
            bars = sum(s.count for s in b.gold) + sum(h.get("gold_bars", 0) for h in b.held.values())
            assert bars <= (GOLD_BARS if "goldmines" in expansions else 0)
            tokens = sum(s.count for s in b.ore) + sum(h.get("ore_tokens", 0) for h in b.held.values())
            assert tokens <= (sum(ORE_TOKENS.values()) if game == "goldrush" else 0)
            for h in b.held.values():
                assert 0 <= h.get("ore_points", 0) <= max(ORE_TOKENS) * h.get("ore_tokens", 0)


@pytest.mark.parametrize("game, expansions, seed", CASES)
def test_a_new_figure_goes_on_a_free_feature_of_the_new_tile(game, expansions, seed):
    result = played(game, expansions, seed)
    placed_any = 0
    for prev, t in boards(result):
        before = set() if prev is None else {(m.player, m.cell, m.at) for m in prev.meeples}
        new = [m for m in t.placed.meeples if (m.player, m.cell, m.at) not in before]
        assert len(new) <= 1
        if not new:
            continue
        placed_any += 1
        m = new[0]
        assert m.player == t.player and m.cell == t.cell
        f = FeatureGraph(t.placed).locate(m.cell, m.at)
        assert f.kind != "river"
        assert [(o.player, o.cell, o.at) for o in f.meeples] == [(m.player, m.cell, m.at)]
    assert placed_any >= 10


@pytest.mark.parametrize("game, expansions, seed", CASES)
def test_completed_features_were_scored_and_emptied(game, expansions, seed):
    result = played(game, expansions, seed)
    for t in result.turns:
        graph = FeatureGraph(t.board)
        for f in graph.features:
            if f.complete and f.kind not in ("field", "prairie"):
                assert f.meeples == [] and f.tents == []
        for s in t.board.ore:
            assert not graph.locate(s.cell, s.at).complete
        if t.board.sheriff is not None:
            assert not graph.locate(t.board.sheriff.cell, t.board.sheriff.at).complete
        report = score(t.board, "completed")
        assert report.problems == []
        assert report.points == {c: 0 for c in t.board.colours()}


@pytest.mark.parametrize("game, expansions, seed", CASES)
def test_track_is_the_sum_of_the_turns_scoring(game, expansions, seed):
    result = played(game, expansions, seed)
    total = {c: 0 for c in PLAYERS[seed]}
    for prev, t in boards(result):
        assert t.placed.track == (prev.track if prev is not None else total)
        report = score(t.placed, "completed")
        assert report.problems == []  # no edge mismatch, figure or river problem on any turn
        points = report.points
        for c in total:
            total[c] += points.get(c, 0)
        assert t.board.track == total
        assert t.report is None or (t.report.board is t.placed and t.report.points == points)
        assert (t.placed.active, t.placed.last_placed) == (t.player, t.cell)
        assert (t.board.active, t.board.last_placed) == (t.player, t.cell)
    assert result.board.track == total
    assert sum(total.values()) > 0


@pytest.mark.parametrize("game, expansions, seed", CASES)
def test_turns_follow_the_seat_order(game, expansions, seed):
    result = played(game, expansions, seed)
    seats = list(PLAYERS[seed])
    expected = 0
    for prev, t in boards(result):
        assert t.player == seats[expected % len(seats)]
        assert t.board.players == seats
        volcano = "volcano" in t.tile
        if not volcano:
            expected += 1
        else:  # seed 004: whoever places the volcano plays again and puts no meeple on it
            assert all(m.cell != t.cell for m in t.placed.meeples)


# --------------------------------------------------------------------------- expansions


def river_links(board: Board) -> dict:
    """River tile cell -> neighbouring river tile cells joined river to river."""
    out = {}
    for cell, p in board.tiles.items():
        o = p.tile.turned(p.rot)
        sides = [s for s in SIDES if o.side_kind(s) == "river"]
        if sides:
            out[cell] = []
            for s in sides:
                other = board.tiles.get(neighbour(cell, s))
                if other is not None and other.tile.turned(other.rot).side_kind(OPPOSITE[s]) == "river":
                    out[cell].append(neighbour(cell, s))
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("expansions", [("river",), ("river", "goldmines")])
def test_river_comes_first_and_is_one_contiguous_river(expansions, seed):
    result = played("carcassonne", expansions, seed)
    board = result.board
    assert board.tiles[(0, 0)].tile.river == "spring"
    roles = [board.tiles[t.cell].tile.river for t in result.turns]
    n_river = sum(1 for r in roles if r)
    assert all(roles[:n_river]) and not any(roles[n_river:])
    assert roles[0] == "fork"
    assert n_river >= 15
    ids = [board.tiles[c].tile.id for c in board.tiles]
    assert sum(1 for i in ids if board.catalog[i].river == "spring") == 1
    assert "R1.lake" not in ids
    links = river_links(board)
    seen, todo = {(0, 0)}, [(0, 0)]
    while todo:
        for n in links[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == set(links)
    assert sum(len(v) for v in links.values()) // 2 == len(links) - 1  # a tree: branches never join


@pytest.mark.parametrize("seed", SEEDS)
def test_gold_tile_puts_one_bar_on_it_and_one_around(seed):
    result = played("carcassonne", ("goldmines",), seed)
    gold_turns = 0
    for prev, t in boards(result):
        tile = t.placed.tiles[t.cell].tile
        before = prev.gold_on() if prev is not None else {}
        after = t.placed.gold_on()
        added = {c: after.get(c, 0) - before.get(c, 0) for c in after}
        added = {c: n for c, n in added.items() if n}
        if not tile.gold:
            assert added == {}
            continue
        gold_turns += 1
        assert sum(added.values()) == 2
        assert added.get(t.cell, 0) >= 1
        others = [c for c in added if c != t.cell] or [t.cell]
        assert all(max(abs(c[0] - t.cell[0]), abs(c[1] - t.cell[1])) <= 1 for c in others)
    assert gold_turns == 8
    held = sum(h.get("gold_bars", 0) for h in result.board.held.values())
    assert held + sum(s.count for s in result.board.gold) == 16


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("expansions", [(), ("sheriff",)])
def test_ore_tokens_lie_one_stack_per_mountain(expansions, seed):
    result = played("goldrush", expansions, seed)
    start = generate_game("goldrush", expansions, players=PLAYERS[seed], n_tiles=1,
                          rng=np.random.default_rng(seed))
    assert [(s.cell, s.count) for s in start.ore] == [((0, 0), 1)]
    mined = 0
    for prev, t in boards(result):
        graph = FeatureGraph(t.board)
        mountains = [graph.locate(s.cell, s.at) for s in t.board.ore]
        assert all(f.kind == "mountain" for f in mountains)
        assert len({f.id for f in mountains}) == len(mountains)
        if prev is not None:
            before = sum(h.get("ore_tokens", 0) for h in prev.held.values())
            mined += sum(h.get("ore_tokens", 0) for h in t.placed.held.values()) > before
    assert mined >= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_sheriff_moves_to_another_incomplete_mountain_after_a_star_tile(seed):
    result = played("goldrush", ("sheriff",), seed)
    stars = 0
    for prev, t in boards(result):
        sheriff = t.placed.sheriff
        before = None if prev is None else prev.sheriff
        if not t.placed.tiles[t.cell].tile.sheriff:
            assert (sheriff is None) == (before is None)
            if sheriff is not None:
                assert (sheriff.cell, sheriff.at) == (before.cell, before.at)
            continue
        stars += 1
        graph = FeatureGraph(t.placed)
        if sheriff is None:
            old = None if before is None else graph.locate(before.cell, before.at)
            assert all(f.complete or f is old for f in graph.of_kind("mountain"))
            continue
        here = graph.locate(sheriff.cell, sheriff.at)
        assert here.kind == "mountain" and not here.complete
        if before is not None:
            assert graph.locate(before.cell, before.at) is not here
    assert stars == sum(1 for p in result.board.tiles.values() if p.tile.sheriff) >= 4


def test_no_tent_shares_a_mountain_part_and_the_tent_stays_in_its_colour():
    result = played("goldrush", ("sheriff",), 2)
    for t in result.turns:
        parts = [(f.cell, piece(t.placed, f)) for f in t.placed.tents + t.placed.meeples]
        tents = [(f.cell, piece(t.placed, f)) for f in t.placed.tents]
        assert all(parts.count(p) == 1 for p in tents)
        assert len({f.player for f in t.placed.tents}) == len(t.placed.tents)


# --------------------------------------------------------------------------- API


def test_same_seed_gives_the_same_board_and_other_seeds_differ():
    a = generate_game("carcassonne", ["river", "goldmines"], players=["red", "blue", "green"],
                      rng=np.random.default_rng(11))
    b = generate_game("carcassonne", ["river", "goldmines"], players=["red", "blue", "green"],
                      rng=np.random.default_rng(11))
    c = generate_game("carcassonne", ["river", "goldmines"], players=["red", "blue", "green"],
                      rng=np.random.default_rng(12))
    assert a.to_json() == b.to_json()
    assert a.to_json() != c.to_json()
    turns = generate_turns("carcassonne", ["river", "goldmines"], players=["red", "blue", "green"],
                           rng=np.random.default_rng(11))
    assert turns[-1].board.to_json() == a.to_json()


def test_history_is_the_board_after_each_turn_and_mid_game_stops_at_n_tiles():
    history = generate_history("goldrush", ["sheriff"], players=["red", "blue"], n_tiles=20,
                               rng=np.random.default_rng(5))
    unscored = generate_history("goldrush", ["sheriff"], players=["red", "blue"], n_tiles=20,
                                rng=np.random.default_rng(5), scored=False)
    assert [len(b.tiles) for b in history] == list(range(2, 21))
    assert [b.active for b in history] == ["red", "blue"] * 9 + ["red"]
    assert [b.last_placed for b in history] == [b.last_placed for b in unscored]
    assert all(b.last_placed in b.tiles for b in history)
    start = generate_game(players=["red"], n_tiles=1, rng=np.random.default_rng(0))
    assert [(c, p.tile.id, p.rot) for c, p in start.tiles.items()] == [((0, 0), "D", 0)]
    assert (start.active, start.last_placed, start.track) == (None, None, {"red": 0})


def test_boards_round_trip_through_json():
    board = generate_game("carcassonne", ["goldmines"], players=["red", "blue"], rng=np.random.default_rng(3))
    again = Board.from_json(board.to_json())
    assert again.to_json() == board.to_json()
    gr = generate_game("goldrush", ["sheriff"], players=["red", "blue"], n_tiles=40, rng=np.random.default_rng(3))
    assert Board.from_json(gr.to_json()).to_json() == gr.to_json()


def test_user_tile_sets_change_the_box(tmp_path):
    own = tmp_path / "mybox.json"
    own.write_text(json.dumps({
        "format": "carcassonne-tiles/1", "name": "mybox", "game": "carcassonne", "expansion": None,
        "tiles": [{"id": "X", "count": 3, "features": [
            {"kind": "road", "edges": ["N"]}, {"kind": "road", "edges": ["E"]},
            {"kind": "road", "edges": ["S"]}, {"kind": "road", "edges": ["W"]},
            {"kind": "field", "edges": ["WR", "NL"]}, {"kind": "field", "edges": ["NR", "EL"]},
            {"kind": "field", "edges": ["ER", "SL"]}, {"kind": "field", "edges": ["SR", "WL"]}]}],
    }))
    result = play_game(players=["red", "blue"], rng=np.random.default_rng(6), tile_sets=[own])
    discarded = sum(len(t.discarded) for t in result.turns)
    assert len(result.board.tiles) + discarded == 74  # 72 with one crossroads, here 3
    assert sum(1 for p in result.board.tiles.values() if p.tile.id == "X") + sum(
        t.discarded.count("X") for t in result.turns) == 3
    again = Board.from_json(result.board.to_json(), tile_sets=[own])
    assert problems(again, FeatureGraph(again)) == []


def test_style_changes_the_play_but_stays_legal():
    loose = generate_game(players=["red", "blue"], rng=np.random.default_rng(4),
                          style=PlayStyle(spread=0.0, touch=0.0, figure=0.0))
    assert loose.meeples == [] and loose.track == {"red": 0, "blue": 0}
    assert problems(loose, FeatureGraph(loose)) == []


@pytest.mark.parametrize("kwargs, message", [
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"expansions": ["sheriff"]}, "unknown expansion 'sheriff' for carcassonne"),
    ({"players": ["red", "purple"]}, "unknown colour 'purple'"),
    ({"players": ["red", "red"]}, "listed twice"),
    ({"players": []}, "at least one colour"),
    ({"n_tiles": 0}, "n_tiles must be"),
    ({"rng": 7}, "numpy.random.Generator"),
])
def test_bad_requests_raise_generate_error(kwargs, message):
    args = {"rng": np.random.default_rng(0), **kwargs}
    with pytest.raises(GenerateError, match=message):
        generate_game(**args)


# --------------------------------------------------------------------------- CLI


def test_cli_writes_the_board_and_the_history(tmp_path):
    out = tmp_path / "board.json"
    hist = tmp_path / "turns"
    args = ["--expansions", "river,goldmines", "--players", "red,blue,green", "--n-tiles", "30",
            "--seed", "8", "-o", str(out), "--history", str(hist)]
    result = CliRunner().invoke(generate, args)
    assert result.exit_code == 0, result.output
    board = Board.from_json(out.read_text())
    assert len(board.tiles) == 30 and board.expansions == ["river", "goldmines"]
    files = sorted(p.name for p in hist.iterdir())
    assert files[0] == "turn-001.json" and files[-1] == "turn-029.json" and len(files) == 29
    assert (hist / "turn-029.json").read_text() == out.read_text()
    expected = generate_game("carcassonne", ["river", "goldmines"], players=["red", "blue", "green"],
                             n_tiles=30, rng=np.random.default_rng(8))
    assert out.read_text() == expected.to_json()
    turns = generate_turns("carcassonne", ["river", "goldmines"], players=["red", "blue", "green"],
                           n_tiles=30, rng=np.random.default_rng(8))
    discarded = sum(len(t.discarded) for t in turns)
    assert discarded == 1  # a river tile that fitted nowhere
    assert result.output == f"30 tiles, 29 turns, 1 tile(s) discarded: wrote {out}, {hist}\n"


def test_cli_prints_the_board_without_output_and_writes_unscored_boards(tmp_path):
    printed = CliRunner().invoke(generate, ["--game", "goldrush", "--n-tiles", "12", "--seed", "2"])
    assert printed.exit_code == 0
    assert json.loads(printed.output)["game"] == "goldrush"
    assert len(json.loads(printed.output)["tiles"]) == 12
    out = tmp_path / "placed.json"
    result = CliRunner().invoke(generate, ["--n-tiles", "25", "--seed", "2", "--unscored", "-o", str(out)])
    assert result.exit_code == 0
    turns = generate_turns(n_tiles=25, rng=np.random.default_rng(2))
    assert out.read_text() == turns[-1].placed.to_json()


def test_cli_bad_input_is_one_error_line_and_writes_nothing(tmp_path):
    out = tmp_path / "board.json"
    result = CliRunner().invoke(generate, ["--players", "red,purple", "--seed", "1", "-o", str(out)])
    assert result.exit_code == 2
    assert result.output.startswith("error: players: unknown colour 'purple'")
    assert not out.exists()
    result = CliRunner().invoke(generate, ["--n-tiles", "0", "--seed", "1", "-o", str(out)])
    assert result.exit_code == 2 and "--n-tiles must be at least 1" in result.output
    assert not out.exists()
