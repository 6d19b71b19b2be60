# %% [markdown]
# # 09 · ARC-AGI-3: interactive games
#
# ARC-AGI-3 is turn-based games on a 64x64 grid of 16 colours: six actions (ACTION6 is a click at
# a cell) plus RESET, and no instructions. An agent has to find out what the game is and win its
# levels in as few actions as a first-time human. This notebook plays the project's own small
# games (a maze, switches pressed in order, tiles filled to match a target, a block pushed onto a
# mark) with the ARC-AGI-3 toolkit offline, and scores two agents against human action counts.
#
# **You will learn to**
# - load a folder of ARC-AGI-3 games with the toolkit (`arc_agi.Arcade`, offline) and see their frames;
# - play an agent for a budget of actions and read the run folder: every action with the hash of the
#   frame it led to, levels completed, actions per level;
# - see why a state graph keyed by frame hashes (no-ops pruned, one click per object, breadth-first to
#   the nearest untried action) beats random actions at the same budget;
# - read a scorecard: levels won, actions per level won, efficiency against the human baseline.
#
# The toolkit needs Python >= 3.12 (`pip install arc-agi arcengine`); on an older Python this
# notebook says so and skips the games.

# %% tags=["parameters"]
PROFILE = "auto"  # smoke | cpu | t4 | a100 | h100 | auto (the games run on the CPU on every profile)
AGENTS = "random,explorer"  # comma-separated: random, explorer, llm (llm needs ARC_LLM_BASE_URL)
GAMES = ""  # empty: the project's own games (shared/arc3/games); or a folder of ARC-AGI-3 games
MAX_ACTIONS = 0  # 0: shared.arc3.MAX_ACTIONS per game (the same budget for every agent)
OUT = "outputs/09_arc_agi_3"

# %%
from pathlib import Path

import matplotlib.pyplot as plt
from IPython.display import display

from shared import arc3, config, runs
from shared.arc3 import frames, harness, scorecard
from shared.arc3.agents import make_agent

P = config.profile(PROFILE)
agent_names = [a.strip() for a in AGENTS.split(",") if a.strip()]
max_actions = MAX_ACTIONS or arc3.MAX_ACTIONS
games_dir = Path(GAMES) if GAMES else arc3.GAMES_DIR
out = Path(OUT)
print(arc3.install_toolkit())
READY = arc3.available()
n_games = len(list(games_dir.glob("*/metadata.json")))
print(f"profile {P.name}: {n_games} games in {games_dir}; agents {', '.join(agent_names)}, "
      f"at most {max_actions} actions a game")
PLAN = arc3.notebook_plan(P, n_games, agent_names, max_actions)
PLAN.show()

# %% [markdown]
# ## The games
# Each game is a folder with a `metadata.json` (id, title, the human's actions per level) and a
# small `arcengine` class. The first frame of each, as the agent sees it:

# %%
if READY:
    games = harness.load_games(games_dir)
    for g in games:
        print(f"{g.game_id}: {g.title}; human actions per level {g.baseline_actions}")
    plt.figure(figsize=(3 * len(games), 3))
    plt.imshow(frames.strip([harness.replay(games_dir, g.game_id, [])[0] for g in games]))
    plt.axis("off")
    plt.show()
else:
    print(f"skipped: {arc3.missing()}")

# %% [markdown]
# ## Play
# Every agent gets the same budget per game. A run folder holds one line per game (a rerun skips
# the games already played), summary.json, report.md and scorecard.png.

# %%
summaries, rows = {}, {}
if READY:
    for name in agent_names:
        PLAN.announce(f"play {name}")
        agent = make_agent(name)
        summaries[name] = harness.run_play(games_dir, agent, out / name, agent_name=name, max_actions=max_actions)
        rows[name] = runs.read_rows(out / name / harness.RESULTS)
        print(scorecard.table(rows[name]))
        print(scorecard.closing_line(summaries[name]), "\n")
else:
    print(f"skipped: {arc3.missing()}")

# %% [markdown]
# ## One play, frame by frame
# Games are deterministic, so a row's action log replays exactly: the explorer's first level of
# the first game, every few actions.

# %%
if READY and "explorer" in rows:
    row = rows["explorer"][0]
    first_level = row["log"][: (row["level_actions"] or [len(row["log"])])[0]]
    shown = harness.replay(games_dir, row["game_id"], [a for a, _ in first_level])
    step = max(1, len(shown) // 8)
    plt.figure(figsize=(16, 2.5))
    plt.imshow(frames.strip(shown[::step] + [shown[-1]]))
    plt.axis("off")
    plt.title(f"{row['game_id']}: {len(first_level)} actions to win level 1 (every {step}th frame)")
    plt.show()
else:
    print("skipped: no explorer run")

# %% [markdown]
# ## The explorer's state graph
# States are frame hashes; an edge is an action that changed the frame; a no-op is pruned for
# the state it was tried in. The graph starts again at every level.

# %%
if READY and "explorer" in rows:
    for row in rows["explorer"]:
        sizes = row["trace"]["levels"] + [row["trace"]["unfinished_level"]]
        print(f"{row['game_id']}: " + "; ".join(f"{s['states']} states, {s['edges']} edges, "
                                                 f"{s['noops_pruned']} no-ops pruned" for s in sizes)
              + f"; {row['trace']['resets']} resets")
else:
    print("skipped: no explorer run")

# %% [markdown]
# ## Scorecard
# Levels won, actions per level won (log scale, the human's in grey) and efficiency: per level
# won, the human's actions over the agent's, capped at 1; a level not won counts 0.

# %%
if READY:
    print(scorecard.compare(list(summaries.values())))
    display(scorecard.plot(rows, title=f"{n_games} project games, at most {max_actions} actions each"))
    print("; ".join(f"{name}: {scorecard.closing_line(s)}" for name, s in summaries.items()))
else:
    print(f"skipped the games: {arc3.missing()}")
