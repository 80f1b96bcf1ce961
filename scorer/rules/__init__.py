"""Per-game rule modules: how the features of the generic engine score.

Each module (:mod:`scorer.rules.carcassonne`, :mod:`scorer.rules.goldrush`) is
found by the board's ``game`` through :func:`scorer.scoring.rules_module` and
implements the interface described in :mod:`scorer.scoring`::

    score_completed(ctx: ScoringContext) -> None
    score_final(ctx: ScoringContext) -> None
    problems(board: Board, graph: FeatureGraph) -> list[dict]
    FIGURES_PER_COLOUR: dict[str, int]
"""
