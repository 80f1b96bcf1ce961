"""Tests of the Goldland end-of-game tally (seed 003, "KONEC HRY A HODNOCENÍ")."""

from __future__ import annotations

import json
import logging

import pytest
from click.testing import CliRunner

from scorer.errors import ScorerError, TallyError
from scorer.goldland import (
    PlayerTally,
    Tally,
    check_tally,
    load_tally,
    missing_token_values,
    parse_tally_text,
    score_tally,
    tally_from_dict,
)
from scorer.goldland_cli import goldland

TEXT_TALLY = """\
# goldland tally
values bandits=4 puma=3
red gold=12 treasures=2 amulet=1 adventures=desert,natives
blue gold=9 treasures=3 amulet=0 adventures=bandits
"""

JSON_TALLY = {
    "format": "goldland-tally/1",
    "token_values": {"bandits": 4, "puma": 3},
    "players": {
        "red": {"gold": 12, "treasures": 2, "amulet": 1, "adventures": ["desert", "natives"]},
        "blue": {"gold": 9, "treasures": 3, "amulet": 0, "adventures": ["bandits"]},
    },
}


def _tally(*players: PlayerTally, **values: int) -> Tally:
    return Tally(players=players, token_values=values)


def _by_name(result):
    return {s.name: s for s in result.ranking}


# --------------------------------------------------------------------------- values


def test_gold_piece_counts_one():
    # given two players with gold only
    tally = _tally(PlayerTally("red", gold=7, amulet=1), PlayerTally("blue", gold=0))
    # when scored
    scores = _by_name(score_tally(tally))
    # then each gold piece is worth 1
    assert (scores["red"].gold, scores["red"].total) == (7, 10)
    assert (scores["blue"].gold, scores["blue"].total) == (0, 0)


def test_treasure_counts_three():
    # given a player with 4 treasures and no gold
    tally = _tally(PlayerTally("red", gold=0, treasures=4), PlayerTally("blue", gold=0))
    # when scored
    red = _by_name(score_tally(tally))["red"]
    # then each treasure is worth 3
    assert (red.treasures, red.treasure_count, red.total) == (12, 4, 12)


def test_amulet_counts_three():
    # given one player with the amulet and one without
    tally = _tally(PlayerTally("red", gold=0, amulet=1), PlayerTally("blue", gold=0, amulet=0))
    # when scored
    scores = _by_name(score_tally(tally))
    # then the amulet is worth 3
    assert (scores["red"].amulet, scores["red"].total) == (3, 3)
    assert (scores["blue"].amulet, scores["blue"].total) == (0, 0)


def test_seed_token_values_desert_five_natives_two():
    # given tokens whose values the rules state: desert 5, natives 2
    tally = _tally(
        PlayerTally("red", gold=0, adventures=("desert",)),
        PlayerTally("blue", gold=0, adventures=("natives",)),
    )
    # when scored without any configured value
    scores = _by_name(score_tally(tally))
    # then the stated values are used
    assert scores["red"].tokens == 5
    assert scores["blue"].tokens == 2


def test_configured_token_values_are_summed():
    # given printed values entered for bandits, puma, mountains, gorge and water
    tally = _tally(
        PlayerTally("red", gold=1, amulet=1, adventures=("bandits", "puma", "mountains")),
        PlayerTally("blue", gold=1, amulet=1, adventures=("gorge", "water", "desert", "natives")),
        bandits=4, puma=3, mountains=5, gorge=2, water=3,
    )
    # when scored
    result = score_tally(tally)
    scores = _by_name(result)
    # then each token counts its printed value
    assert scores["red"].tokens == 4 + 3 + 5
    assert scores["blue"].tokens == 2 + 3 + 5 + 2
    assert scores["red"].total == 1 + 3 + 12
    assert scores["blue"].total == 1 + 3 + 12
    assert result.token_values == {
        "bandits": 4, "puma": 3, "desert": 5, "mountains": 5, "gorge": 2, "water": 3, "natives": 2,
    }


def test_full_breakdown_of_example_tally():
    # given the example tally in text form
    tally = parse_tally_text(TEXT_TALLY)
    # when scored
    result = score_tally(tally)
    red, blue = result.ranking
    # then every part and the total are exact
    assert (red.name, red.gold, red.treasures, red.amulet, red.tokens, red.total) == (
        "red", 12, 6, 3, 7, 28,
    )
    assert (blue.name, blue.gold, blue.treasures, blue.amulet, blue.tokens, blue.total) == (
        "blue", 9, 9, 0, 4, 22,
    )
    assert (red.place, blue.place) == (1, 2)
    assert result.winners == ("red",)


# --------------------------------------------------------------------------- ranking


def test_tie_shares_place_and_skips_next():
    # given red and blue on 10, green on 5, yellow on 10 (listed last)
    tally = _tally(
        PlayerTally("red", gold=7, amulet=1),
        PlayerTally("green", gold=5),
        PlayerTally("blue", gold=4, treasures=2),
        PlayerTally("yellow", gold=1, treasures=3),
    )
    # when scored
    result = score_tally(tally)
    # then the three tied players share 1st place and the next is 4th
    assert [(s.place, s.name, s.total) for s in result.ranking] == [
        (1, "red", 10), (1, "blue", 10), (1, "yellow", 10), (4, "green", 5),
    ]
    assert result.winners == ("red", "blue", "yellow")


def test_tie_below_first_place():
    # given totals 9, 6, 6, 2
    tally = _tally(
        PlayerTally("a", gold=9),
        PlayerTally("b", gold=6),
        PlayerTally("c", gold=3, amulet=1),
        PlayerTally("d", gold=2),
    )
    # when scored
    result = score_tally(tally)
    # then places are 1., 2., 2., 4.
    assert [s.place for s in result.ranking] == [1, 2, 2, 4]
    assert result.winners == ("a",)


def test_any_player_name_is_accepted():
    # given players named by person rather than colour
    tally = _tally(PlayerTally("Jana Nováková", gold=3), PlayerTally("Petr", gold=4))
    # when scored
    result = score_tally(tally)
    # then the names are kept as given
    assert [s.name for s in result.ranking] == ["Petr", "Jana Nováková"]


# --------------------------------------------------------------------------- rule checks


def test_two_amulets_rejected():
    # given a player with 2 amulets
    tally = _tally(PlayerTally("red", gold=3, amulet=2), PlayerTally("blue", gold=0))
    # when / then
    with pytest.raises(TallyError, match=r"player red holds 2 amulets: a player can hold at most one"):
        score_tally(tally)


def test_token_held_by_two_players_rejected():
    # given the desert token listed for both red and blue
    tally = _tally(
        PlayerTally("red", gold=0, adventures=("desert",)),
        PlayerTally("blue", gold=0, adventures=("desert",)),
    )
    # when / then
    with pytest.raises(TallyError, match=r"desert adventure token is held by both red and blue"):
        score_tally(tally)


def test_token_listed_twice_for_one_player_rejected():
    with pytest.raises(TallyError, match=r"desert token is listed twice"):
        parse_tally_text("red gold=1 adventures=desert,desert\nblue gold=1\n")


def test_thirteen_backpack_slots_rejected():
    # given 10 treasures, the amulet and 2 equipment items: 13 slots
    tally = _tally(
        PlayerTally("red", gold=0, treasures=10, amulet=1, equipment=2),
        PlayerTally("blue", gold=0),
    )
    # when / then
    with pytest.raises(TallyError, match=r"player red fills 13 backpack slots .*has 12 slots"):
        score_tally(tally)


def test_twelve_backpack_slots_accepted():
    tally = _tally(
        PlayerTally("red", gold=0, treasures=9, amulet=1, equipment=2),
        PlayerTally("blue", gold=0),
    )
    assert _by_name(score_tally(tally))["red"].total == 27 + 3


def test_thirteen_treasures_without_equipment_rejected():
    tally = _tally(PlayerTally("red", gold=0, treasures=13), PlayerTally("blue", gold=0))
    with pytest.raises(TallyError, match=r"fills 13 backpack slots"):
        score_tally(tally)


def test_unknown_token_value_rejected_with_what_to_add():
    # given the puma token held but no value entered for it
    tally = _tally(PlayerTally("red", gold=0, adventures=("puma",)), PlayerTally("blue", gold=0))
    # when / then the error names the token and how to add its value
    assert missing_token_values(tally) == ["puma"]
    with pytest.raises(TallyError, match=r"value of the puma adventure token \(held by red\) is unknown.*values puma=N"):
        score_tally(tally)


def test_unheld_token_needs_no_value():
    tally = _tally(PlayerTally("red", gold=1), PlayerTally("blue", gold=0))
    assert missing_token_values(tally) == []
    assert score_tally(tally).token_values == {}


@pytest.mark.parametrize("value", [1, 6])
def test_token_value_out_of_range_rejected(value):
    with pytest.raises(TallyError, match=r"printed token values are 2 to 5"):
        parse_tally_text(f"values puma={value}\nred gold=1\nblue gold=1\n")


def test_token_value_contradicting_rules_rejected():
    with pytest.raises(TallyError, match=r"desert token is 4, but the rules give 5"):
        tally_from_dict({"token_values": {"desert": 4}, "players": {"red": {"gold": 1}}})


@pytest.mark.parametrize("count", [1, 6])
def test_player_count_outside_two_to_five_rejected(count):
    tally = _tally(*(PlayerTally(f"p{i}", gold=0) for i in range(count)))
    with pytest.raises(TallyError, match=rf"lists {count} player\(s\): Goldland is played by 2 to 5"):
        score_tally(tally)


@pytest.mark.parametrize("field, value", [("gold", -1), ("treasures", -2), ("amulet", -1)])
def test_negative_count_rejected(field, value):
    data = {"players": {"red": {"gold": 0, field: value}, "blue": {"gold": 0}}}
    with pytest.raises(TallyError, match=rf"player red: {field} is {value}: a count cannot be negative"):
        tally_from_dict(data)


@pytest.mark.parametrize("value", [1.5, "3", True])
def test_non_integer_count_rejected(value):
    with pytest.raises(TallyError, match=r"player red: gold is .*expected a whole number"):
        tally_from_dict({"players": {"red": {"gold": value}, "blue": {"gold": 0}}})


def test_unknown_adventure_rejected():
    with pytest.raises(TallyError, match=r"unknown adventure 'jungle'; use one of bandits, puma"):
        tally_from_dict({"players": {"red": {"gold": 0, "adventures": ["jungle"]}}})


def test_temple_gold_excess_is_a_warning_only(caplog):
    # given 2 players holding 20 gold: the temple holds 3 + 4, plus 2 from the box
    tally = _tally(PlayerTally("red", gold=12, amulet=1), PlayerTally("blue", gold=8, amulet=1))
    # when scored
    with caplog.at_level(logging.INFO, logger="scorer.goldland"):
        result = score_tally(tally)
    # then the tally is scored and a warning is reported
    assert [s.total for s in result.ranking] == [15, 11]
    assert len(result.warnings) == 1
    assert "20 gold pieces in play" in result.warnings[0]
    assert "3 (supply) + 4 (bonus field)" in result.warnings[0]
    assert "20 gold pieces in play" in caplog.text


def test_temple_gold_within_limit_gives_no_warning():
    # given 3 players: supply 6 + bonus 6 + 3 from the box = 15
    tally = _tally(
        PlayerTally("red", gold=6, amulet=1),
        PlayerTally("blue", gold=5, amulet=1),
        PlayerTally("green", gold=4, amulet=1),
    )
    assert check_tally(tally) == ()


def test_gold_without_amulet_is_a_warning_only():
    tally = _tally(PlayerTally("red", gold=2, amulet=1), PlayerTally("blue", gold=1))
    result = score_tally(tally)
    assert [s.total for s in result.ranking] == [5, 1]
    assert any("player blue has 1 gold but no amulet" in w for w in result.warnings)


# --------------------------------------------------------------------------- formats


def test_text_and_json_give_the_same_result(tmp_path):
    # given the same tally as text and as JSON
    text_file = tmp_path / "tally.txt"
    text_file.write_text(TEXT_TALLY, encoding="utf-8")
    json_file = tmp_path / "tally.json"
    json_file.write_text(json.dumps(JSON_TALLY), encoding="utf-8")
    # when both are loaded and scored
    from_text = score_tally(load_tally(text_file))
    from_json = score_tally(load_tally(json_file))
    # then the results are equal
    assert from_text == from_json
    assert load_tally(text_file) == load_tally(json_file)


def test_json_equipment_and_adventure_string():
    data = {
        "format": "goldland-tally/1",
        "players": {
            "red": {"gold": 2, "equipment": 3, "adventures": "desert, natives"},
            "blue": {"gold": 1},
        },
    }
    tally = tally_from_dict(data)
    assert tally.players[0] == PlayerTally("red", 2, 0, 0, ("desert", "natives"), 3)
    assert tally.players[1].equipment is None


def test_json_wrong_format_tag_rejected():
    with pytest.raises(TallyError, match=r"format is 'goldland-tally/2'"):
        tally_from_dict({"format": "goldland-tally/2", "players": {}})


def test_json_unknown_player_field_rejected():
    with pytest.raises(TallyError, match=r"player red: unknown field 'gems'"):
        tally_from_dict({"players": {"red": {"gold": 1, "gems": 2}}})


def test_json_missing_gold_rejected():
    with pytest.raises(TallyError, match=r"player red: \"gold\" is missing"):
        tally_from_dict({"players": {"red": {"treasures": 1}}})


def test_invalid_json_names_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"players":\n  {"red": }\n}', encoding="utf-8")
    with pytest.raises(TallyError, match=r"not valid JSON at line 2"):
        load_tally(path)


def test_text_parse_error_names_line_and_quotes_it():
    # given a bad count on line 3
    text = "# tally\nred gold=12\nblue gold=nine amulet=0\n"
    # when / then
    with pytest.raises(TallyError, match=r"line 3 \('blue gold=nine amulet=0'\): gold='nine' is not a whole number"):
        parse_tally_text(text)


def test_text_item_without_equals_names_line():
    with pytest.raises(TallyError, match=r"line 2 \('blue 9'\): '9' is not key=value"):
        parse_tally_text("red gold=1\nblue 9\n")


def test_text_unknown_field_names_line():
    with pytest.raises(TallyError, match=r"line 1 \('red gold=1 gems=2'\): unknown field 'gems'"):
        parse_tally_text("red gold=1 gems=2\n")


def test_text_player_listed_twice_rejected():
    with pytest.raises(TallyError, match=r"line 2 .*player red is listed twice"):
        parse_tally_text("red gold=1\nred gold=2\n")


def test_text_missing_gold_rejected():
    with pytest.raises(TallyError, match=r"line 1 \('red treasures=2'\): gold is missing"):
        parse_tally_text("red treasures=2\n")


def test_text_without_players_rejected():
    with pytest.raises(TallyError, match=r"lists no players"):
        parse_tally_text("# nothing\n\n")


def test_load_missing_file_rejected(tmp_path):
    with pytest.raises(TallyError, match=r"cannot read tally file"):
        load_tally(tmp_path / "nope.txt")


def test_tally_error_is_a_scorer_error():
    assert issubclass(TallyError, ScorerError)


# --------------------------------------------------------------------------- CLI


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "tally.txt"
    path.write_text(TEXT_TALLY, encoding="utf-8")
    return path


def test_cli_file_prints_ranking_table(text_file):
    # given a text tally file
    # when the command is run on it
    result = CliRunner().invoke(goldland, [str(text_file)])
    # then the table lists place, player, parts and total
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["Place", "Player", "Gold", "Treasures", "Amulet", "Tokens", "Total"]
    assert lines[1].split() == ["1.", "red", "12", "6", "3", "7", "28"]
    assert lines[2].split() == ["2.", "blue", "9", "9", "0", "4", "22"]
    assert lines[3] == "Winner: red"


def test_cli_shared_first_place(tmp_path):
    path = tmp_path / "tie.txt"
    path.write_text("red gold=3 amulet=1\nblue gold=3 treasures=1\n", encoding="utf-8")
    result = CliRunner().invoke(goldland, [str(path)])
    assert result.exit_code == 0, result.output
    assert [line.split()[:2] for line in result.stdout.splitlines()[1:3]] == [["1.", "red"], ["1.", "blue"]]
    assert "Shared first place: red, blue" in result.stdout


def test_cli_json_output(tmp_path):
    # given a JSON tally file
    path = tmp_path / "tally.json"
    path.write_text(json.dumps(JSON_TALLY), encoding="utf-8")
    # when run with --json
    result = CliRunner().invoke(goldland, [str(path), "--json"])
    # then stdout is the JSON result
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(r["place"], r["player"], r["total"]) for r in data["ranking"]] == [
        (1, "red", 28), (2, "blue", 22),
    ]
    assert data["ranking"][0] == {
        "place": 1, "player": "red", "gold": 12, "treasures": 6, "amulet": 3, "tokens": 7,
        "total": 28, "treasure_count": 2, "adventures": ["desert", "natives"],
    }
    assert data["winners"] == ["red"]


def test_cli_warning_goes_to_stderr(text_file):
    result = CliRunner().invoke(goldland, [str(text_file)])
    assert result.exit_code == 0
    assert "warning: 21 gold pieces in play" in result.stderr
    assert "warning" not in result.stdout


def test_cli_interactive(tmp_path):
    # given answers for 2 players; red holds the puma token, whose value is asked
    answers = "\n".join([
        "2",                # players
        "red", "10", "1", "2", "desert,puma", "",   # name, gold, amulet, treasures, tokens, equipment
        "blue", "4", "1", "1", "", "5",
        "3",                # value of the puma token
    ]) + "\n"
    # when run without a file
    result = CliRunner().invoke(goldland, [], input=answers)
    # then the value is asked for and the ranking printed
    assert result.exit_code == 0, result.output
    assert "Value of the puma adventure token" in result.output
    assert "Value of the desert" not in result.output
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith(("1.", "2."))]
    assert rows == [
        ["1.", "red", "10", "6", "3", "8", "27"],
        ["2.", "blue", "4", "3", "3", "0", "10"],
    ]


def test_cli_interactive_reprompts_on_token_taken():
    answers = "\n".join([
        "2",
        "red", "1", "1", "0", "desert", "",
        "blue", "1", "1", "0", "desert", "natives", "",
    ]) + "\n"
    result = CliRunner().invoke(goldland, ["--json"], input=answers)
    assert result.exit_code == 0, result.output
    assert "the desert token is already held by red" in result.stderr
    data = json.loads(result.stdout[result.stdout.index("{"):])
    assert {r["player"]: r["total"] for r in data["ranking"]} == {"red": 9, "blue": 6}


def test_cli_bad_file_exits_2_with_one_line(tmp_path):
    # given a tally with two amulets for red
    path = tmp_path / "bad.txt"
    path.write_text("red gold=3 amulet=2\nblue gold=1\n", encoding="utf-8")
    # when run
    result = CliRunner().invoke(goldland, [str(path)])
    # then exit status 2, one error line, no traceback
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: player red holds 2 amulets")
    assert "Traceback" not in result.output


def test_cli_parse_error_exits_2_naming_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("red gold=3\nblue gold=x\n", encoding="utf-8")
    result = CliRunner().invoke(goldland, [str(path)])
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
    assert "line 2 ('blue gold=x')" in result.stderr


def test_cli_unknown_token_value_in_file_exits_2(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("red gold=3 adventures=water\nblue gold=1\n", encoding="utf-8")
    result = CliRunner().invoke(goldland, [str(path)])
    assert result.exit_code == 2
    assert "error: the value of the water adventure token (held by red) is unknown" in result.stderr


def test_cli_missing_file_exits_2(tmp_path):
    result = CliRunner().invoke(goldland, [str(tmp_path / "nope.txt")])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot read tally file")
    assert len(result.stderr.splitlines()) == 1


def test_registered_in_main_group():
    from scorer.cli import main

    assert main.get_command(None, "goldland") is goldland
