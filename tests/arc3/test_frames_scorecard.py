"""Frames (hashes, objects, text view, strip) and the scorecard's arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from shared.arc3 import frames, scorecard


def test_regions_find_one_click_per_object_at_the_games_cell_size():
    small = np.full((8, 8), 5)
    small[1, 1] = 8
    small[4:6, 4:7] = 9
    small[7, :] = 3
    frame = np.repeat(np.repeat(small, 8, axis=0), 8, axis=1)
    assert frames.cell_size(frame) == 8
    found = frames.regions(frame)
    assert [(r.colour, r.size) for r in found] == [(8, 64), (9, 384), (3, 512), (5, 64 * 64 - 64 - 512 - 384)]
    assert all(frame[r.y, r.x] == r.colour for r in found)
    assert (found[0].x, found[0].y) == (12, 12)


def test_a_ring_is_clicked_on_itself_not_in_its_hole():
    f = np.zeros((5, 5), dtype=np.int8)
    f[0, :] = f[-1, :] = f[:, 0] = f[:, -1] = 4
    ring = next(r for r in frames.regions(f) if r.colour == 4)
    assert f[ring.y, ring.x] == 4 and ring.size == 16


def test_hash_text_view_and_strip():
    a = np.zeros((64, 64), dtype=np.int8)
    b = a.copy()
    b[0, 0] = 1
    assert frames.frame_hash(a) == frames.frame_hash(a.copy()) != frames.frame_hash(b)
    text, s = frames.text_view(np.repeat(np.repeat(np.arange(4).reshape(2, 2) + 10, 32, 0), 32, 1))
    assert (text, s) == ("ab\ncd", 32)
    picture = frames.strip([a, b], gap=2)
    assert picture.shape == (64, 130, 3) and tuple(picture[0, 0]) == (255, 255, 255)
    with pytest.raises(ValueError, match="at least one frame"):
        frames.strip([])


def test_efficiency_caps_each_level_and_counts_unwon_levels_as_zero():
    row = {"baseline_actions": [10, 20, 30], "level_actions": [5, 40], "win_levels": 3}
    got = scorecard.game_score(row)
    assert got["level_ratios"] == [2.0, 0.5] and got["efficiency"] == pytest.approx((1.0 + 0.5) / 3, abs=1e-3)
    assert scorecard.game_score({"baseline_actions": None, "level_actions": [3]}) == \
        {"level_ratios": None, "efficiency": None}


def test_summary_table_and_compare():
    rows = [{"game_id": "aa01", "agent": "x", "status": "won", "levels_completed": 2, "win_levels": 2, "actions": 9,
             "level_actions": [4, 5], "baseline_actions": [4, 4], "efficiency": 0.9},
            {"game_id": "bb01", "agent": "x", "status": "error", "levels_completed": 0, "win_levels": 3,
             "actions": 1, "level_actions": [], "baseline_actions": None, "efficiency": None, "error": "boom"}]
    s = scorecard.summarize(rows, agent="x", max_actions=10, wall_s=1.25)
    assert (s["levels_won"], s["levels_total"], s["actions"], s["actions_per_level_won"]) == (2, 5, 10, 4.5)
    assert (s["games_won"], s["errors"], s["mean_efficiency"]) == (1, 1, 0.9)
    assert scorecard.closing_line(s) == "won 2/5 levels in 10 actions (1.2 s)"
    t = scorecard.table(rows)
    assert "4(4), 5(4)" in t and "error: boom" in t
    assert "2/5" in scorecard.compare([s])
